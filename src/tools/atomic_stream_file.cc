#include "tools/atomic_stream_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

namespace vt {

namespace {
std::string Errno() { return std::strerror(errno); }
}  // namespace

Expected<std::unique_ptr<AtomicStreamFile>> AtomicStreamFile::Create(const std::string& path) {
  std::unique_ptr<AtomicStreamFile> f(new AtomicStreamFile());
  f->path_ = path;
  std::random_device rd;
  f->tmp_ = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  f->fd_ = ::open(f->tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (f->fd_ < 0) return IoError("cannot create " + f->tmp_ + ": " + Errno());
  return f;
}

AtomicStreamFile::~AtomicStreamFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

Status AtomicStreamFile::Fail(const std::string& what) {
  const std::string e = Errno();
  failed_ = true;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  return IoError("cannot " + what + " " + tmp_ + ": " + e);
}

Status AtomicStreamFile::Write(const void* data, size_t n) {
  if (failed_ || fd_ < 0) return IoError(tmp_ + ": write after a failure or Finish()");
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Fail("write");
    }
    p += w;
    n -= static_cast<size_t>(w);
    size_ += static_cast<uint64_t>(w);
  }
  return Status::Ok();
}

Status AtomicStreamFile::PadTo(uint64_t offset) {
  if (offset < size_)
    return InvalidArgument(tmp_ + ": cannot pad to offset " + std::to_string(offset) + ", already " +
                           std::to_string(size_) + " bytes");
  static const std::vector<char> kZeros(65536, 0);
  while (size_ < offset) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(offset - size_, kZeros.size()));
    VT_RETURN_IF_ERROR(Write(kZeros.data(), n));
  }
  return Status::Ok();
}

Status AtomicStreamFile::Finish() {
  if (failed_) return IoError(tmp_ + ": not written completely");
  if (fd_ < 0) return Status::Ok();
  if (::fsync(fd_) != 0) return Fail("flush");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return Fail("close");
  return Status::Ok();
}

Status AtomicStreamFile::Commit() {
  VT_RETURN_IF_ERROR(Finish());
  if (committed_) return Status::Ok();
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const std::string e = Errno();
    ::unlink(tmp_.c_str());
    failed_ = true;
    return IoError("cannot rename " + tmp_ + " to " + path_ + ": " + e);
  }
  committed_ = true;
  return Status::Ok();
}

}  // namespace vt
