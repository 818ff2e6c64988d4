#include "vtensor/base/mapped_pages.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "base/scoped_temp_dir_test_util.h"
#include "vtensor/base/file.h"

namespace vt {
namespace {

constexpr char kSmaps[] =
    "7f0000000000-7f0000400000 r--p 00000000 fe:00 1234                       /m/model.vtpack\n"
    "Size:               4096 kB\n"
    "Rss:                4096 kB\n"
    "FilePmdMapped:      2048 kB\n"
    "VmFlags: rd mr mw me hg\n"
    "7f0000400000-7f0000600000 r--p 00000000 fe:00 1235                       /m/small.bin\n"
    "Rss:                   8 kB\n"
    "7f0000600000-7f0001000000 r-xp 00000000 fe:00 1236                       /usr/bin/vtensor\n"
    "Rss:               10000 kB\n"
    "FilePmdMapped:      4096 kB\n"
    "7f0001000000-7f0002000000 rw-p 00000000 00:00 0 \n"
    "Rss:               16384 kB\n"
    "7f0002000000-7f0002800000 r--p 00200000 fe:00 1237                       /m/model.onnx.data\n"
    "Rss:                 100 kB\n"
    "FilePmdMapped:         0 kB\n";

TEST(FileMappingPages, CountsLargeReadOnlyFileMappingsOnly) {
  const FileMappingPages p = ParseFileMappingPages(kSmaps);
  // The 4 MiB payload, the 2 MiB file (the threshold counts) and the 8 MiB data file; not the
  // executable mapping or the anonymous one.
  EXPECT_EQ(p.mappings, 3);
  EXPECT_EQ(p.rss_bytes, (4096 + 8 + 100) * 1024);
  EXPECT_EQ(p.pmd_mapped_bytes, 2048 * 1024);
}

TEST(FileMappingPages, EmptyOrForeignTextIsZero) {
  for (const char* text : {"", "\n\n", "garbage line\nRss: 5 kB\n"}) {
    const FileMappingPages p = ParseFileMappingPages(text);
    EXPECT_EQ(p.mappings, 0) << text;
    EXPECT_EQ(p.rss_bytes, 0) << text;
    EXPECT_EQ(p.pmd_mapped_bytes, 0) << text;
  }
}

TEST(FileMappingPages, SeesThisProcessMappingAFile) {
  testing::ScopedTempDir dir("mapped_pages");
  ASSERT_FALSE(dir.path().empty());
  const std::string path = dir.path() + "/weights.bin";
  const size_t n = 3 * kHugeMapBytes;
  { std::ofstream(path, std::ios::binary) << std::string(n, '\x5a'); }
  const FileMappingPages before = ReadFileMappingPages();
  auto mf = MappedFile::Open(path);
  ASSERT_TRUE(mf.ok()) << mf.status().message();
  volatile uint8_t sum = 0;
  for (size_t i = 0; i < n; i += 4096) sum = sum + (*mf)->data()[i];
  EXPECT_EQ(sum, static_cast<uint8_t>(0x5a * (n / 4096)));
  const FileMappingPages after = ReadFileMappingPages();
  EXPECT_EQ(after.mappings, before.mappings + 1);
  EXPECT_GE(after.rss_bytes - before.rss_bytes, static_cast<int64_t>(n));
  EXPECT_LE(after.pmd_mapped_bytes, after.rss_bytes);
}

}  // namespace
}  // namespace vt
