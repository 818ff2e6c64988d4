#include "vtensor/base/host_memory.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace vt {
namespace {

bool Aligned64(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

TEST(HostMemoryTest, BlocksAreRequestsRoundedTo64Bytes) {
  for (size_t bytes : {size_t{1}, size_t{7}, size_t{63}, size_t{64}, size_t{4095}, size_t{4097},
                       size_t{65537}, (size_t{7} << 20) + 33}) {
    const size_t b = HostAllocBlockBytes(bytes);
    EXPECT_GE(b, bytes) << bytes;
    EXPECT_LT(b, bytes + 64) << bytes;
    EXPECT_EQ(b % 64, 0u) << bytes;
  }
  EXPECT_EQ(HostAllocBlockBytes(0), 64u);
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

// The head's pages are supplied without changing a byte of a block already handed out, once.
TEST(HostMemoryTest, PrefaultHeadKeepsContentsAndRunsOnce) {
  if (!HostArenaEnabled()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  auto* p = static_cast<uint8_t*>(HostAlloc(8192));
  ASSERT_NE(p, nullptr);
  std::memset(p, 0x5a, 8192);
  PrefaultHostArenaHead();
  const HostMemoryStats s = GetHostMemoryStats();
  if (s.prefaulted_bytes == 0) GTEST_SKIP() << "the kernel refused MADV_POPULATE_WRITE";
  EXPECT_EQ(s.prefaulted_bytes, size_t{4} << 20);
  for (size_t i = 0; i < 8192; ++i) ASSERT_EQ(p[i], 0x5a) << i;
  PrefaultHostArenaHead();  // once per process: a second call does nothing
  EXPECT_EQ(GetHostMemoryStats().prefaulted_bytes, s.prefaulted_bytes);
  HostFree(p, 8192);
}

// The arena is process-wide and other tests leave blocks and freed ranges in it: these tests
// look at what their own requests add to the touched bytes, using sizes (tens of MiB) whose
// freed ranges cover any hole smaller tests leave behind.
constexpr size_t kMiB = size_t{1} << 20;

TEST(HostMemoryTest, FreedBlockIsHandedOutAgainWithoutTouchingFreshMemory) {
  if (!HostArenaEnabled()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  const size_t bytes = 61 * kMiB + 4096 * 3;
  void* a = HostAlloc(bytes);
  ASSERT_NE(a, nullptr);
  const HostMemoryStats before = GetHostMemoryStats();
  HostFree(a, bytes);
  EXPECT_GE(GetHostMemoryStats().cached_bytes, before.cached_bytes + HostAllocBlockBytes(bytes));
  void* b = HostAlloc(bytes - 100);
  EXPECT_EQ(b, a) << "the lowest freed range that holds the request";
  const HostMemoryStats after = GetHostMemoryStats();
  EXPECT_EQ(after.touched_bytes, before.touched_bytes);
  EXPECT_EQ(after.reused_blocks, before.reused_blocks + 1);
  EXPECT_EQ(after.fresh_blocks, before.fresh_blocks);
  HostFree(b, bytes - 100);
}

// A freed block is split for smaller requests (two blocks of 19 MiB from one of 44), and freed
// neighbours merge back into one range that a request of their joint size fits.
TEST(HostMemoryTest, FreedRangesAreSplitAndMerged) {
  if (!HostArenaEnabled()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  const size_t big = 44 * kMiB, small = 19 * kMiB;
  auto* a = static_cast<uint8_t*>(HostAlloc(big));
  ASSERT_NE(a, nullptr);
  std::memset(a, 1, big);
  HostFree(a, big);
  const uint64_t touched = GetHostMemoryStats().touched_bytes;
  auto* b = static_cast<uint8_t*>(HostAlloc(small));
  auto* c = static_cast<uint8_t*>(HostAlloc(small));
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(b, a);
  EXPECT_EQ(c, a + small) << "the rest of the split range";
  std::memset(b, 2, small);
  std::memset(c, 3, small);
  EXPECT_EQ(b[small - 1], 2);
  EXPECT_EQ(c[0], 3);
  EXPECT_EQ(GetHostMemoryStats().touched_bytes, touched) << "no fresh memory for either";
  HostFree(b, small);
  HostFree(c, small);
  void* d = HostAlloc(big);
  EXPECT_EQ(d, a) << "the two freed halves and the tail merged into one range again";
  EXPECT_EQ(GetHostMemoryStats().touched_bytes, touched);
  HostFree(d, big);
}

// A sequence like a run's (buffers freed at their last use, others taken after): the memory
// touched is the peak of live bytes, not the sum of the requests.
TEST(HostMemoryTest, TouchedMemoryFollowsThePeakOfLiveBytes) {
  if (!HostArenaEnabled()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  const uint64_t before = GetHostMemoryStats().touched_bytes;
  void* x = HostAlloc(30 * kMiB);
  void* y = HostAlloc(20 * kMiB);
  HostFree(x, 30 * kMiB);
  void* z = HostAlloc(25 * kMiB);  // fits where x was
  HostFree(y, 20 * kMiB);
  void* w = HostAlloc(24 * kMiB);  // fits the 5 MiB left by x and y's 20 merged
  const uint64_t grown = GetHostMemoryStats().touched_bytes - before;
  EXPECT_LE(grown, 50 * kMiB + 2 * kMiB) << "peak of live bytes 50 MiB; requests 99 MiB";
  HostFree(z, 25 * kMiB);
  HostFree(w, 24 * kMiB);
}

// live_bytes counts blocks handed out and not freed; peak_live_bytes their highest sum since
// ResetHostMemoryPeak.
TEST(HostMemoryTest, LiveBytesAndTheirPeak) {
  if (!HostArenaEnabled()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  const uint64_t live0 = GetHostMemoryStats().live_bytes;
  ResetHostMemoryPeak();
  EXPECT_EQ(GetHostMemoryStats().peak_live_bytes, live0);
  void* x = HostAlloc(3 * kMiB);
  void* y = HostAlloc(5000);  // 5056 bytes: a block is its request rounded to 64
  EXPECT_EQ(GetHostMemoryStats().live_bytes, live0 + 3 * kMiB + 5056);
  HostFree(x, 3 * kMiB);
  void* z = HostAlloc(kMiB);
  HostMemoryStats s = GetHostMemoryStats();
  EXPECT_EQ(s.live_bytes, live0 + kMiB + 5056);
  EXPECT_EQ(s.peak_live_bytes, live0 + 3 * kMiB + 5056);
  ResetHostMemoryPeak();
  EXPECT_EQ(GetHostMemoryStats().peak_live_bytes, live0 + kMiB + 5056);
  HostFree(y, 5000);
  HostFree(z, kMiB);
  EXPECT_EQ(GetHostMemoryStats().live_bytes, live0);
}

// Blocks beyond a region's reserve get their own mapping; once the freed bytes kept exceed the
// cap (1 GiB), a region with no live block goes back to the system. Never touched here, so
// these reservations cost address space only.
TEST(HostMemoryTest, IdleRegionsBeyondTheCapAreUnmapped) {
  if (!HostArenaEnabled()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  const size_t huge = size_t{1200} * kMiB;
  void* a = HostAlloc(huge);
  ASSERT_NE(a, nullptr);
  const HostMemoryStats held = GetHostMemoryStats();
  HostFree(a, huge);
  const HostMemoryStats after = GetHostMemoryStats();
  EXPECT_LE(after.mapped_bytes + huge, held.mapped_bytes);
  EXPECT_LE(after.cached_bytes, held.cached_bytes + 2 * kMiB);
}

// Minor page faults of this thread so far.
long MinorFaults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

// A fresh block beyond the head has the pages after it supplied by the write-ahead thread: the
// next fresh block is written without faults, and the first block's bytes are untouched.
TEST(HostMemoryTest, PagesAfterAFreshBlockAreSuppliedAhead) {
  if (!HostArenaEnabled()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  const char* off = std::getenv("VTENSOR_HOST_ARENA_AHEAD");
  if (off != nullptr && std::strcmp(off, "off") == 0) GTEST_SKIP() << "VTENSOR_HOST_ARENA_AHEAD=off";
  // Larger than any hole the other tests leave: both blocks come from the untouched tail.
  const size_t big = 80 * kMiB, next = 2 * kMiB;
  const uint64_t ahead0 = GetHostMemoryStats().ahead_bytes;
  auto* a = static_cast<uint8_t*>(HostAlloc(big));
  ASSERT_NE(a, nullptr);
  std::memset(a, 0x3c, big);
  // The thread supplies up to 8 MiB; wait for the first 2 MiB of it (SCHED_IDLE: a busy
  // machine may delay it).
  for (int i = 0; i < 500 && GetHostMemoryStats().ahead_bytes < ahead0 + next + 4096; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  PrefaultHostArenaHead();  // says whether this kernel takes MADV_POPULATE_WRITE
  if (GetHostMemoryStats().prefaulted_bytes == 0) GTEST_SKIP() << "no MADV_POPULATE_WRITE";
  ASSERT_GT(GetHostMemoryStats().ahead_bytes, ahead0);
  auto* b = static_cast<uint8_t*>(HostAlloc(next));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b, a + big);  // right after the first block, in supplied pages
  const long f0 = MinorFaults();
  std::memset(b, 0x5a, next);
  // Without the thread every one of the 512 pages faults; under AddressSanitizer the shadow
  // of the block (64 pages) faults as well.
  EXPECT_LT(MinorFaults() - f0, static_cast<long>(next / 4096 / 4)) << "of " << next / 4096 << " pages";
  for (size_t i = 0; i < big; i += 4093) ASSERT_EQ(a[i], 0x3c) << i;
  HostFree(b, next);
  HostFree(a, big);
}

// After the write-ahead thread has started, a forked child allocates, writes and frees fresh
// memory (the arena's lock is not inherited held; the child has no thread).
TEST(HostMemoryTest, ForkedChildAllocatesAfterTheThreadStarted) {
  if (!HostArenaEnabled()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  void* a = HostAlloc(40 * kMiB);  // fresh pages beyond the head: the thread starts
  ASSERT_NE(a, nullptr);
  std::memset(a, 1, 40 * kMiB);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    void* b = HostAlloc(24 * kMiB);
    if (b == nullptr) _exit(2);
    std::memset(b, 2, 24 * kMiB);
    HostFree(b, 24 * kMiB);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  HostFree(a, 40 * kMiB);
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
