// A file written piece by piece and published atomically: the bytes go to a vt::TempFile
// (vtensor/base/temp_file.h: nothing is left behind even when the process is killed), which
// replaces the destination only on Commit(). Used for
// outputs too large to build in memory first (vtensor-gen-transformer's external weights), where
// vt::WriteFileAtomic (vtensor/base/file.h), which takes the whole content at once, would need
// the bytes twice. Same guarantees: on any failure, or when the object is destroyed without a
// Commit(), the temp file is removed and the destination is left untouched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "vtensor/base/status.h"
#include "vtensor/base/temp_file.h"

namespace vt {

class AtomicStreamFile {
 public:
  // Creates the temporary for `path`. Errors: IoError naming `path` and the reason.
  static Expected<std::unique_ptr<AtomicStreamFile>> Create(const std::string& path);
  ~AtomicStreamFile();
  AtomicStreamFile(const AtomicStreamFile&) = delete;
  AtomicStreamFile& operator=(const AtomicStreamFile&) = delete;

  // Appends `n` bytes. Errors: IoError (the file is then unusable; Commit fails).
  Status Write(const void* data, size_t n);
  // Appends zero bytes until size() == offset (no-op when already there).
  // Errors: InvalidArgument when offset < size(); IoError.
  Status PadTo(uint64_t offset);
  // Bytes written so far.
  uint64_t size() const { return size_; }
  // No more writes (later ones fail). Idempotent.
  Status Finish();
  // fsync, then the temporary replaces `path`. Errors: IoError.
  Status Commit();
  const std::string& path() const { return path_; }

 private:
  AtomicStreamFile() = default;
  std::string path_;
  std::unique_ptr<TempFile> file_;
  uint64_t size_ = 0;
  bool failed_ = false, finished_ = false;
};

}  // namespace vt
