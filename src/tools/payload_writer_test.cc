#include "tools/payload_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/scoped_temp_dir_test_util.h"
#include "vtensor/base/file.h"
#include "vtensor/base/mapped_pages.h"

namespace vt {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

std::vector<uint8_t> Bytes(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 13 + i / 4096);
  return v;
}

// Sizes that start, end and straddle 2 MiB blocks at odd places.
const std::vector<size_t> kSizes = {4097, 3 * kMiB + 5, 7, 0, 2 * kMiB, 1, 2 * kMiB - 4096 + 3};

struct Written {
  std::string path;
  std::vector<uint64_t> offsets;
  uint64_t size = 0;
};

Written WriteAll(const std::string& path) {
  Written w{path, {}, 0};
  auto pw = PayloadWriter::Open(path);
  EXPECT_TRUE(pw.ok()) << pw.status().message();
  for (size_t i = 0; i < kSizes.size(); ++i) {
    const auto b = Bytes(kSizes[i], static_cast<uint8_t>(i));
    auto off = (*pw)->Append(b.data(), b.size());
    EXPECT_TRUE(off.ok()) << off.status().message();
    w.offsets.push_back(*off);
  }
  w.size = (*pw)->size();
  EXPECT_TRUE((*pw)->Commit().ok());
  return w;
}

TEST(PayloadWriter, AlignedOffsetsPayloadBytesAndZeroPadding) {
  testing::ScopedTempDir dir("payload_writer");
  ASSERT_FALSE(dir.path().empty());
  const Written w = WriteAll(dir.path() + "/m.vtpack");
  auto mf = MappedFile::Open(w.path);
  ASSERT_TRUE(mf.ok()) << mf.status().message();
  ASSERT_EQ((*mf)->size(), w.size);
  const uint8_t* p = (*mf)->data();
  uint64_t end = 0;
  for (size_t i = 0; i < kSizes.size(); ++i) {
    const uint64_t at = w.offsets[i];
    EXPECT_EQ(at % PayloadWriter::kPayloadAlign, 0u) << i;
    EXPECT_EQ(at, (end + 4095) / 4096 * 4096) << i;  // the next aligned offset, no gap beyond
    for (uint64_t z = end; z < at; ++z) ASSERT_EQ(p[z], 0) << "padding byte " << z;
    const auto b = Bytes(kSizes[i], static_cast<uint8_t>(i));
    for (size_t j = 0; j < b.size(); ++j) ASSERT_EQ(p[at + j], b[j]) << "payload " << i << " byte " << j;
    end = at + kSizes[i];
  }
  EXPECT_EQ(w.size, end);
}

TEST(PayloadWriter, NothingUnderTheNameBeforeCommit) {
  testing::ScopedTempDir dir("payload_writer_commit");
  ASSERT_FALSE(dir.path().empty());
  const std::string path = dir.path() + "/m.vtpack";
  {
    auto pw = PayloadWriter::Open(path);
    ASSERT_TRUE(pw.ok());
    const auto b = Bytes(3 * kMiB, 1);
    ASSERT_TRUE((*pw)->Append(b.data(), b.size()).ok());
    EXPECT_EQ(MappedFile::Open(path).status().code(), StatusCode::kNotFound);
  }
  EXPECT_EQ(MappedFile::Open(path).status().code(), StatusCode::kNotFound);  // discarded
}

// Mapped right after writing, every whole 2 MiB block of the file is a 2 MiB mapping, where
// the filesystem caches files in 2 MiB folios at all (shown by a file written in one call).
// One write per payload would leave the blocks that straddle payloads in small folios.
TEST(PayloadWriter, WholeBlocksMapAs2MiBPagesWhereTheFilesystemAllows) {
  testing::ScopedTempDir dir("payload_writer_pmd");
  ASSERT_FALSE(dir.path().empty());
  auto mapped_2m = [](const std::string& path) -> int64_t {
    auto mf = MappedFile::Open(path);
    if (!mf.ok()) return -1;
    const FileMappingPages before = ReadFileMappingPages();
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < (*mf)->size(); i += 4096) sink = sink + (*mf)->data()[i];
    return ReadFileMappingPages().pmd_mapped_bytes - before.pmd_mapped_bytes;
  };
  const std::string reference = dir.path() + "/reference.bin";
  const auto r = Bytes(4 * kMiB, 9);
  ASSERT_TRUE(WriteFileAtomic(reference, std::string(r.begin(), r.end())).ok());
  if (mapped_2m(reference) <= 0)
    GTEST_SKIP() << "the page cache of " << dir.path() << " holds no 2 MiB folios here";
  const Written w = WriteAll(dir.path() + "/m.vtpack");
  EXPECT_EQ(mapped_2m(w.path), static_cast<int64_t>(w.size / PayloadWriter::kBlockBytes *
                                                    PayloadWriter::kBlockBytes));
}

}  // namespace
}  // namespace vt
