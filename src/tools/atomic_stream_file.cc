#include "tools/atomic_stream_file.h"

#include <algorithm>
#include <vector>

namespace vt {

Expected<std::unique_ptr<AtomicStreamFile>> AtomicStreamFile::Create(const std::string& path) {
  std::unique_ptr<AtomicStreamFile> f(new AtomicStreamFile());
  f->path_ = path;
  VT_ASSIGN_OR_RETURN(f->file_, TempFile::Create(path));
  return f;
}

AtomicStreamFile::~AtomicStreamFile() = default;

Status AtomicStreamFile::Write(const void* data, size_t n) {
  if (failed_ || finished_) return IoError(path_ + ": write after a failure or Finish()");
  Status st = file_->Write(data, n);
  if (!st.ok()) {
    failed_ = true;
    return st;
  }
  size_ += n;
  return Status::Ok();
}

Status AtomicStreamFile::PadTo(uint64_t offset) {
  if (offset < size_)
    return InvalidArgument(path_ + ": cannot pad to offset " + std::to_string(offset) +
                           ", already " + std::to_string(size_) + " bytes");
  static const std::vector<char> kZeros(65536, 0);
  while (size_ < offset) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(offset - size_, kZeros.size()));
    VT_RETURN_IF_ERROR(Write(kZeros.data(), n));
  }
  return Status::Ok();
}

Status AtomicStreamFile::Finish() {
  if (failed_) return IoError(path_ + ": not written completely");
  finished_ = true;
  return Status::Ok();
}

Status AtomicStreamFile::Commit() {
  VT_RETURN_IF_ERROR(Finish());
  Status st = file_->Publish();
  if (!st.ok()) failed_ = true;
  return st;
}

}  // namespace vt
