#include "vtensor/base/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "base/scoped_temp_dir_test_util.h"
#include "vtensor/base/mapped_pages.h"

namespace vt {
namespace {

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 4096) & 0xFF);
  return s;
}

// Small files map anywhere; from kHugeMapBytes on the map starts at a 2 MiB boundary (the
// kernel can then map 2 MiB folios of the page cache whole), with the file's bytes unchanged.
TEST(MappedFile, LargeFilesMapAtA2MiBBoundaryWithTheirBytes) {
  testing::ScopedTempDir dir("mapped_file");
  ASSERT_FALSE(dir.path().empty());
  for (size_t n : {size_t{1}, size_t{4097}, kHugeMapBytes - 1, kHugeMapBytes,
                   3 * kHugeMapBytes + 12345}) {
    const std::string path = dir.path() + "/f" + std::to_string(n);
    const std::string bytes = Pattern(n);
    ASSERT_TRUE(WriteFileAtomic(path, bytes).ok());
    // Several maps at once: each one's trimmed reservation must leave the others intact.
    auto a = MappedFile::Open(path);
    auto b = MappedFile::Open(path);
    ASSERT_TRUE(a.ok() && b.ok()) << n;
    for (const auto& mf : {*a, *b}) {
      ASSERT_EQ(mf->size(), n);
      if (n >= kHugeMapBytes) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(mf->data()) % kHugeMapBytes, 0u) << n;
      }
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(mf->data()), n), bytes) << n;
    }
  }
}

TEST(MappedFile, MissingFileIsNotFound) {
  auto mf = MappedFile::Open("/nonexistent/dir/file.bin");
  ASSERT_FALSE(mf.ok());
  EXPECT_EQ(mf.status().code(), StatusCode::kNotFound);
}

// A named pipe is refused at once, not waited on for a writer; so is a directory.
TEST(MappedFile, PipesAndDirectoriesAreNotRegularFiles) {
  testing::ScopedTempDir dir("mapped_file");
  ASSERT_FALSE(dir.path().empty());
  const std::string fifo = dir.path() + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& p : {fifo, dir.path()}) {
    auto mf = MappedFile::Open(p);
    ASSERT_FALSE(mf.ok()) << p;
    EXPECT_EQ(mf.status().code(), StatusCode::kInvalidArgument) << p;
    EXPECT_NE(mf.status().message().find("not a regular file: " + p), std::string::npos)
        << mf.status().message();
  }
}

}  // namespace
}  // namespace vt
