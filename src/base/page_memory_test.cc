#include "vtensor/base/page_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <sys/mman.h>

namespace vt {
namespace {

TEST(PageMemory, ZeroedAndAlignedBelowAndAboveTheHugePageSize) {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{4097}, kZeroedPagesMinBytes - 1,
                       kZeroedPagesMinBytes, 3 * kZeroedPagesMinBytes + 17}) {
    auto* p = static_cast<uint8_t*>(AllocZeroedPages(bytes));
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << bytes;
    for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(p[i], 0) << "byte " << i << " of " << bytes;
    if (bytes > 0) std::memset(p, 0xFF, bytes);  // the whole range is writable
    FreeZeroedPages(p, bytes);
  }
}

TEST(PageMemory, PrefaultLeavesTheBytesAsTheyAre) {
  std::vector<uint8_t> v(3 * 4096 + 5);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(i * 7);
  PrefaultMappedPages(v.data() + 3, v.size() - 3);  // unaligned range; not a file mapping
  PrefaultMappedPages(v.data(), 0);
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], static_cast<uint8_t>(i * 7));
}

TEST(PageMemory, ThreadMinorFaultsCountsFirstTouches) {
  constexpr size_t kPages = 64, kPage = 4096;
  void* m = ::mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  ::madvise(m, kPages * kPage, MADV_NOHUGEPAGE);  // one fault per 4 KiB page
  auto* p = static_cast<volatile uint8_t*>(m);
  const int64_t before = ThreadMinorFaults();
  for (size_t i = 0; i < kPages; ++i) p[i * kPage] = 1;
  const int64_t first = ThreadMinorFaults() - before;
  for (size_t i = 0; i < kPages; ++i) p[i * kPage] = 2;  // touched already: no fault
  const int64_t second = ThreadMinorFaults() - before - first;
  ::munmap(m, kPages * kPage);
  EXPECT_GE(first, static_cast<int64_t>(kPages));
  EXPECT_EQ(second, 0);
}

}  // namespace
}  // namespace vt
