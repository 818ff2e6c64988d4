#include "vtensor/base/read_ahead.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "scoped_temp_dir_test_util.h"
#include "vtensor/base/page_memory.h"

namespace vt {
namespace {

constexpr size_t kFileBytes = size_t{8} << 20;

// A file of kFileBytes under `dir` (its pages are in the page cache once written).
std::string WriteFile(const std::string& dir) {
  const std::string path = dir + "/weights.bin";
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) return "";
  std::vector<unsigned char> bytes(kFileBytes);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7);
  const bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  ::close(fd);
  return ok ? path : "";
}

// A fresh read-only mapping of `path`, unmapped when the last copy of the handle is dropped;
// `*unmapped` (if given) is set then.
std::shared_ptr<const void> MapFile(const std::string& path, std::atomic<bool>* unmapped) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return nullptr;
  void* p = ::mmap(nullptr, kFileBytes, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return nullptr;
  return std::shared_ptr<const void>(p, [unmapped](const void* q) {
    ::munmap(const_cast<void*>(q), kFileBytes);
    if (unmapped != nullptr) unmapped->store(true);
  });
}

// Minor faults this thread takes reading one byte of each page of the mapping.
int64_t FaultsReading(const void* data) {
  const int64_t before = ThreadMinorFaults();
  unsigned sum = 0;
  for (size_t off = 0; off < kFileBytes; off += 4096)
    sum += static_cast<const volatile unsigned char*>(data)[off];
  asm volatile("" : : "r"(sum));
  return ThreadMinorFaults() - before;
}

TEST(ReadAheadTest, ModeFromEnvironmentValue) {
  EXPECT_EQ(ReadAheadModeFrom(nullptr), ReadAheadMode::kTouch);
  EXPECT_EQ(ReadAheadModeFrom("touch"), ReadAheadMode::kTouch);
  EXPECT_EQ(ReadAheadModeFrom(""), ReadAheadMode::kTouch);
  EXPECT_EQ(ReadAheadModeFrom("off"), ReadAheadMode::kOff);
  EXPECT_EQ(ReadAheadModeFrom("0"), ReadAheadMode::kOff);
}

// After the thread went through a mapping, reading it takes no fault; a mapping of the same
// file it did not read takes faults (the check can fail).
TEST(ReadAheadTest, ReadPagesTakeNoFaultInTheRun) {
  testing::ScopedTempDir dir("read_ahead");
  const std::string path = WriteFile(dir.path());
  ASSERT_FALSE(path.empty());
  auto ahead = MapFile(path, nullptr);
  auto control = MapFile(path, nullptr);
  ASSERT_TRUE(ahead && control);
  // Two ranges, the file's second half first: the thread reads them in the order given.
  const auto* base = static_cast<const unsigned char*>(ahead.get());
  std::vector<MappedRange> ranges = {{base + kFileBytes / 2, kFileBytes / 2, ahead},
                                     {base + 100, kFileBytes / 2 - 100, ahead}};
  auto ra = ReadAhead::Start(std::move(ranges), ReadAheadMode::kTouch);
  ASSERT_NE(ra, nullptr);
  ra->Wait();
  EXPECT_EQ(ra->bytes_total(), kFileBytes - 100);
  EXPECT_EQ(ra->bytes_done(), kFileBytes - 100);
  EXPECT_EQ(FaultsReading(ahead.get()), 0);
  EXPECT_GT(FaultsReading(control.get()), 0);
}

TEST(ReadAheadTest, NothingToReadStartsNoThread) {
  auto keep = std::make_shared<int>(0);
  EXPECT_EQ(ReadAhead::Start({}, ReadAheadMode::kTouch), nullptr);
  EXPECT_EQ(ReadAhead::Start({{keep.get(), sizeof(int), keep}}, ReadAheadMode::kOff), nullptr);
  // Ranges without bytes, data or keep-alive handle are skipped.
  EXPECT_EQ(ReadAhead::Start({{keep.get(), 0, keep}, {nullptr, 4, keep}, {keep.get(), 4, nullptr}},
                             ReadAheadMode::kTouch),
            nullptr);
}

// Destroying the handle stops and joins the thread and drops the keep-alive handles: the
// mapping nothing else holds is unmapped by then.
TEST(ReadAheadTest, DestroyedHandleStopsTheThreadAndReleasesTheMapping) {
  testing::ScopedTempDir dir("read_ahead");
  const std::string path = WriteFile(dir.path());
  ASSERT_FALSE(path.empty());
  std::atomic<bool> unmapped{false};
  auto map = MapFile(path, &unmapped);
  ASSERT_TRUE(map);
  std::vector<MappedRange> ranges(64, MappedRange{map.get(), kFileBytes, map});
  auto ra = ReadAhead::Start(std::move(ranges), ReadAheadMode::kTouch);
  ASSERT_NE(ra, nullptr);
  map.reset();
  const uint64_t total = ra->bytes_total();
  EXPECT_FALSE(unmapped.load());
  ra.reset();
  EXPECT_TRUE(unmapped.load());
  EXPECT_EQ(total, uint64_t{64} * kFileBytes);
}

}  // namespace
}  // namespace vt
