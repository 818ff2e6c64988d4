#include "tools/payload_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace vt {

Expected<std::unique_ptr<PayloadWriter>> PayloadWriter::Open(const std::string& path) {
  auto w = std::unique_ptr<PayloadWriter>(new PayloadWriter());
  w->path_ = path;
  VT_ASSIGN_OR_RETURN(w->file_, TempFile::Create(path));
  w->block_.resize(kBlockBytes);
  return w;
}

Expected<uint64_t> PayloadWriter::Append(const uint8_t* data, size_t n) {
  const uint64_t at = (size_ + kPayloadAlign - 1) / kPayloadAlign * kPayloadAlign;
  VT_RETURN_IF_ERROR(Put(nullptr, static_cast<size_t>(at - size_)));
  VT_RETURN_IF_ERROR(Put(data, n));
  return at;
}

Status PayloadWriter::Put(const uint8_t* data, size_t n) {
  while (n > 0) {
    const size_t off = static_cast<size_t>(size_ - block_start_);
    const size_t k = std::min(n, kBlockBytes - off);
    if (data != nullptr) {
      std::memcpy(block_.data() + off, data, k);
      data += k;
    } else {
      std::memset(block_.data() + off, 0, k);
    }
    size_ += k;
    n -= k;
    if (size_ - block_start_ == kBlockBytes) VT_RETURN_IF_ERROR(Flush());
  }
  return Status::Ok();
}

Status PayloadWriter::Flush() {
  const size_t used = static_cast<size_t>(size_ - block_start_);
  if (used > 0) VT_RETURN_IF_ERROR(file_->WriteAt(block_.data(), used, block_start_));
  block_start_ = size_;
  return Status::Ok();
}

Status PayloadWriter::Commit() {
  VT_RETURN_IF_ERROR(Flush());
  VT_RETURN_IF_ERROR(file_->Publish());
  committed_ = true;
  return Status::Ok();
}

void PayloadWriter::Discard() {
  if (committed_) ::unlink(path_.c_str());
}

}  // namespace vt
