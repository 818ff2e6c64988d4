// File access: read-only memory maps and atomic writes (temp file + rename).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "vtensor/base/status.h"

namespace vt {

// A read-only, private memory map of a whole file. Empty files map to an empty span.
// Errors: NotFound when the file does not exist, IoError on open/stat/mmap failure.
class MappedFile {
 public:
  static Expected<std::shared_ptr<MappedFile>> Open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Drops the resident pages of the whole pages inside [data, data + n) of a read-only file
// mapping from this process (madvise MADV_DONTNEED): they are re-read from the page cache if
// touched again. For weights that were packed or replaced by a compiled payload.
void ReleaseMappedPages(const void* data, size_t n);

// Reads a whole file into a string. Errors: NotFound, IoError.
Expected<std::string> ReadFileToString(const std::string& path);

// Writes `bytes` to `path` atomically: a temp file in the same directory is written,
// fsync'ed and renamed over `path`. On any failure the temp file is removed and `path`
// is left untouched. Errors: IoError naming the path and the failing call.
Status WriteFileAtomic(const std::string& path, std::string_view bytes);

// Directory part of `path` ("." when none).
std::string DirName(const std::string& path);
// Joins a directory and a relative path.
std::string JoinPath(const std::string& dir, const std::string& rel);

}  // namespace vt
