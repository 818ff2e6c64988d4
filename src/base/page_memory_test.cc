#include "vtensor/base/page_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

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

}  // namespace
}  // namespace vt
