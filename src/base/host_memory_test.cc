#include "vtensor/base/host_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace vt {
namespace {

bool Aligned64(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

TEST(HostMemoryTest, ClassesAreAtMostAQuarterAboveTheRequest) {
  for (size_t bytes : {size_t{1}, size_t{7}, size_t{63}, size_t{4095}, size_t{4096}, size_t{4097},
                       size_t{5121}, size_t{65537}, size_t{1} << 20, (size_t{1} << 20) + 1,
                       size_t{3} << 20, (size_t{7} << 20) + 33}) {
    const size_t c = HostAllocClassBytes(bytes);
    EXPECT_GE(c, bytes) << bytes;
    if (bytes >= kHostArenaMinBytes) {
      EXPECT_LE(c, bytes + bytes / 4) << bytes;
      EXPECT_EQ(c % 1024, 0u) << bytes;
      EXPECT_EQ(HostAllocClassBytes(c), c) << "a class size is its own class";
    } else {
      EXPECT_EQ(c % 64, 0u) << bytes;
    }
  }
  EXPECT_EQ(HostAllocClassBytes(4096), 4096u);
  EXPECT_EQ(HostAllocClassBytes(4097), 5120u);
}

// Odd sizes across the small path, slab blocks and blocks with their own mapping: every block
// is aligned, writable over its whole length and disjoint from the others.
TEST(HostMemoryTest, BlocksAreAlignedWritableAndDisjoint) {
  const std::vector<size_t> sizes = {1, 7, 17, 33, 257, 4095, 4096, 4097, 65537, 1 << 20,
                                     (1 << 20) + 1, (3 << 20) + 5, (9 << 20) + 7};
  std::vector<uint8_t*> blocks;
  for (size_t i = 0; i < sizes.size(); ++i) {
    auto* p = static_cast<uint8_t*>(HostAlloc(sizes[i]));
    ASSERT_NE(p, nullptr) << sizes[i];
    EXPECT_TRUE(Aligned64(p)) << sizes[i];
    std::memset(p, static_cast<int>(i + 1), sizes[i]);
    blocks.push_back(p);
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(blocks[i][0], i + 1) << sizes[i];
    EXPECT_EQ(blocks[i][sizes[i] - 1], i + 1) << sizes[i] << " was overwritten by another block";
    HostFree(blocks[i], sizes[i]);
  }
  HostFree(nullptr, 123);  // ignored
}

// The arena is process-wide and other tests leave blocks in it: these tests use sizes (tens of
// MiB, own mappings) that nothing else in the unit tests allocates, so the free lists they
// look at hold only their own blocks.
TEST(HostMemoryTest, FreedBlockIsHandedOutAgainForItsClass) {
  if (!HostArenaEnabled()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  const size_t bytes = (size_t{61} << 20) + 4096 * 3;
  void* a = HostAlloc(bytes);
  ASSERT_NE(a, nullptr);
  const HostMemoryStats before = GetHostMemoryStats();
  HostFree(a, bytes);
  EXPECT_EQ(GetHostMemoryStats().cached_bytes, before.cached_bytes + HostAllocClassBytes(bytes));
  // Another request of the same class gets the same, already faulted-in, block.
  void* b = HostAlloc(bytes - 100);
  EXPECT_EQ(b, a);
  const HostMemoryStats after = GetHostMemoryStats();
  EXPECT_EQ(after.reused_blocks, before.reused_blocks + 1);
  EXPECT_EQ(after.fresh_blocks, before.fresh_blocks);
  HostFree(b, bytes - 100);
}

TEST(HostMemoryTest, SmallerRequestTakesACachedLargerBlockAndReturnsItToItsClass) {
  if (!HostArenaEnabled()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  const size_t big = size_t{44} << 20, small = size_t{19} << 20;  // 2.3x: within the 4x reach
  void* a = HostAlloc(big);
  HostFree(a, big);
  void* b = HostAlloc(small);
  EXPECT_EQ(b, a) << "a cached block up to 4x larger is reused before fresh memory";
  static_cast<uint8_t*>(b)[small - 1] = 1;
  HostFree(b, small);  // goes back to the class of `big`, not of `small`
  void* c = HostAlloc(big);
  EXPECT_EQ(c, a);
  HostFree(c, big);
}

TEST(HostMemoryTest, ConcurrentAllocAndFree) {
  auto work = [](int seed) {
    for (int i = 0; i < 2000; ++i) {
      const size_t n = 4096 + static_cast<size_t>((seed * 7919 + i * 104729) % 300000);
      auto* p = static_cast<uint8_t*>(HostAlloc(n));
      ASSERT_NE(p, nullptr);
      p[0] = p[n - 1] = static_cast<uint8_t>(i);
      EXPECT_EQ(p[0], p[n - 1]);
      HostFree(p, n);
    }
  };
  std::thread t1(work, 1), t2(work, 2);
  t1.join();
  t2.join();
}

}  // namespace
}  // namespace vt
