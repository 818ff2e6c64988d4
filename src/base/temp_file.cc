#include "vtensor/base/temp_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>

namespace vt {

namespace {

std::string Errno() { return std::strerror(errno); }

std::string DirOf(const std::string& path) {
  const size_t s = path.find_last_of('/');
  if (s == std::string::npos) return ".";
  return s == 0 ? "/" : path.substr(0, s);
}
std::string BaseOf(const std::string& path) {
  const size_t s = path.find_last_of('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

std::string RandomSuffix() {
  static std::atomic<uint32_t> counter{0};
  std::random_device rd;
  return std::to_string(::getpid()) + "." + std::to_string(rd() ^ counter.fetch_add(1));
}

// Why the directory of `dest` cannot take a new file, in words.
std::string DirectoryProblem(const std::string& dest, int err) {
  const std::string dir = DirOf(dest);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    return "directory '" + dir + "' " +
           (errno == ENOENT ? std::string("does not exist") : "is not accessible: " + Errno());
  if (!S_ISDIR(st.st_mode)) return "'" + dir + "' is not a directory";
  return std::strerror(err);
}

bool ForceNamedFallback() {
  static const bool force = std::getenv("VTENSOR_TEST_NO_TMPFILE") != nullptr;
  return force;
}

}  // namespace

void CountWrittenBytesForTests(size_t n) {
  static const long long limit = [] {
    const char* v = std::getenv("VTENSOR_TEST_KILL_AFTER_BYTES");
    return v ? std::atoll(v) : -1LL;
  }();
  if (limit < 0) return;
  static std::atomic<long long> written{0};
  if (written.fetch_add(static_cast<long long>(n)) + static_cast<long long>(n) >= limit)
    ::kill(::getpid(), SIGKILL);
}

int SweepStaleTemporaries(const std::string& dir, const std::string& base) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  const std::string prefix = base + ".tmp.";
  int removed = 0;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    // "<pid>" or "<pid>.<digits>"
    const std::string rest = name.substr(prefix.size());
    const size_t dot = rest.find('.');
    const std::string pid_text = rest.substr(0, dot);
    const std::string tail = dot == std::string::npos ? "" : rest.substr(dot + 1);
    auto digits = [](const std::string& s) {
      return !s.empty() && s.size() < 19 && s.find_first_not_of("0123456789") == std::string::npos;
    };
    if (!digits(pid_text) || (dot != std::string::npos && !digits(tail))) continue;
    const long long pid = std::atoll(pid_text.c_str());
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // writer alive
    if (::unlinkat(::dirfd(d), name.c_str(), 0) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

Expected<std::unique_ptr<TempFile>> TempFile::Create(const std::string& dest) {
  std::unique_ptr<TempFile> f(new TempFile());
  f->dest_ = dest;
  const std::string dir = DirOf(dest);
  struct stat st {};
  if (::stat(dest.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return IoError("cannot write '" + dest + "': it is a directory");
  if (!ForceNamedFallback()) {
    f->fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (f->fd_ >= 0) return f;
    // Filesystems without O_TMPFILE say so with EOPNOTSUPP (or EISDIR/EINVAL on old kernels);
    // anything else (no such directory, no permission) is the answer for the fallback too.
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
      return IoError("cannot write '" + dest + "': " + DirectoryProblem(dest, errno));
  }
  SweepStaleTemporaries(dir, BaseOf(dest));
  f->named_ = dest + ".tmp." + RandomSuffix();
  f->fd_ = ::open(f->named_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (f->fd_ < 0) {
    const int err = errno;
    f->named_.clear();
    return IoError("cannot write '" + dest + "': " + DirectoryProblem(dest, err));
  }
  return f;
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!published_ && !named_.empty()) ::unlink(named_.c_str());
}

Status TempFile::Fail(const std::string& what) {
  const std::string e = Errno();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!named_.empty()) ::unlink(named_.c_str());
  named_.clear();
  return IoError("cannot " + what + " '" + dest_ + "': " + e);
}

Status TempFile::Write(const void* data, size_t n) {
  if (fd_ < 0) return IoError("cannot write '" + dest_ + "': the file was closed after an error");
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Fail("write");
    }
    CountWrittenBytesForTests(static_cast<size_t>(w));
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status TempFile::WriteAt(const void* data, size_t n, uint64_t offset) {
  if (fd_ < 0) return IoError("cannot write '" + dest_ + "': the file was closed after an error");
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      return Fail("write");
    }
    if (w == 0) {
      errno = ENOSPC;
      return Fail("write");
    }
    CountWrittenBytesForTests(static_cast<size_t>(w));
    p += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return Status::Ok();
}

Status TempFile::Truncate(uint64_t size) {
  if (fd_ < 0) return IoError("cannot write '" + dest_ + "': the file was closed after an error");
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return Fail("extend");
  return Status::Ok();
}

Status TempFile::Publish() {
  if (published_) return Status::Ok();
  if (fd_ < 0) return IoError("cannot write '" + dest_ + "': the file was closed after an error");
  if (::fsync(fd_) != 0) return Fail("flush");
  if (named_.empty()) {
    // linkat cannot replace an existing name: link under a temporary name, then rename. A kill
    // between the two leaves that name for the next writer's sweep.
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    const std::string tmp = dest_ + ".tmp." + RandomSuffix();
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) != 0)
      return Fail("link the new");
    named_ = tmp;
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return Fail("close");
  if (::rename(named_.c_str(), dest_.c_str()) != 0) {
    const std::string e = Errno();
    ::unlink(named_.c_str());
    named_.clear();
    return IoError("cannot replace '" + dest_ + "': " + e);
  }
  published_ = true;
  return Status::Ok();
}

}  // namespace vt
