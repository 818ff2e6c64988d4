// Test-only: a fresh directory under the system temp dir, removed with everything in it when
// the object goes out of scope. path() is empty when the directory could not be created.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace vt::testing {

class ScopedTempDir {
 public:
  // `tag` becomes part of the directory name ("vt_<tag>_XXXXXX").
  explicit ScopedTempDir(const std::string& tag) {
    std::string t =
        (std::filesystem::temp_directory_path() / ("vt_" + tag + "_XXXXXX")).string();
    path_ = ::mkdtemp(t.data()) ? t : "";
  }
  ~ScopedTempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace vt::testing
