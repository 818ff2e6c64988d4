#include "vtensor/base/aligned_alloc.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

namespace vt {
namespace {

bool Aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kAlignBytes == 0; }

TEST(AlignedAllocTest, SizesRoundUpToWholeLines) {
  EXPECT_EQ(AlignedSize(0), 64u);
  EXPECT_EQ(AlignedSize(1), 64u);
  EXPECT_EQ(AlignedSize(64), 64u);
  EXPECT_EQ(AlignedSize(65), 128u);
}

TEST(AlignedAllocTest, EveryAllocationIsAligned) {
  for (size_t n : {0, 1, 7, 17, 33, 257, 4097}) {
    AlignedArray<float> a = AllocateAlignedArray<float>(n);
    ASSERT_NE(a.get(), nullptr);
    EXPECT_TRUE(Aligned(a.get())) << n;
    AlignedVector<int8_t> v(n + 1, 3);
    EXPECT_TRUE(Aligned(v.data())) << n;
    EXPECT_EQ(v.back(), 3);
  }
  std::shared_ptr<const void> shared(AllocateAlignedBytes(100), AlignedDeleter{});
  EXPECT_TRUE(Aligned(shared.get()));
}

}  // namespace
}  // namespace vt
