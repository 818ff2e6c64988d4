// The payload file of `vtensor compile` (OUT.vtpack, docs/compiled-tensors.md): payloads
// appended at 4096-byte aligned offsets, zero bytes between them, streamed into a vt::TempFile
// beside the final name (nothing is left behind if the process dies) and published by Commit.
//
// The bytes go to the file in whole 2 MiB blocks at 2 MiB-aligned offsets (the last block
// partial), not one write per payload: the page cache keeps a file in folios no larger than the
// writes that made them, and only a 2 MiB folio can be mapped whole (base/file.h). Written
// this way, a compiled model run right after compiling maps its payloads in 2 MiB pages
// (docs/genai.md, "Payload pages").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/base/temp_file.h"

namespace vt {

class PayloadWriter {
 public:
  static constexpr uint64_t kPayloadAlign = 4096;       // bytes; every payload's offset
  static constexpr size_t kBlockBytes = size_t{2} << 20;  // bytes per write

  // A writer for `path` (not created until Commit). Errors: IoError naming `path`.
  static Expected<std::unique_ptr<PayloadWriter>> Open(const std::string& path);
  // Appends `n` bytes at the next kPayloadAlign-aligned offset; returns that offset.
  // Errors: IoError (a failed write; the writer is then unusable).
  Expected<uint64_t> Append(const uint8_t* data, size_t n);
  // Writes what is buffered and publishes the file under its name. Errors: IoError.
  Status Commit();
  // Removes the committed file again (the model write failed).
  void Discard();
  uint64_t size() const { return size_; }  // bytes appended so far, padding included

 private:
  PayloadWriter() = default;
  // Appends `n` bytes of `data` (zeros when null) at size_, writing each block once it is full.
  Status Put(const uint8_t* data, size_t n);
  // Writes the buffered bytes of the current block at its offset.
  Status Flush();
  std::string path_;
  std::unique_ptr<TempFile> file_;
  std::vector<uint8_t> block_;  // kBlockBytes; bytes [block_start_, size_) of the file
  uint64_t block_start_ = 0;    // file offset of block_[0], a multiple of kBlockBytes
  uint64_t size_ = 0;
  bool committed_ = false;
};

}  // namespace vt
