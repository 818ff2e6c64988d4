#include "vtensor/layout/layout_pack.h"

#include <gtest/gtest.h>

#include <cmath>

#include "vtensor/layout/layout_presets.h"
#include "vtensor/layout/layout_text.h"

namespace vt {
namespace {

TEST(LayoutPackTest, UnpackOfPackIsExactForLosslessLayouts) {
  const int64_t k = 17, n = 33;
  std::vector<float> x(static_cast<size_t>(k * n));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.5f - 3.0f;
  for (const Layout& l : {*GemmColumnPanels(k, n, 16), *GemmColumnPanels(k, n, 32),
                          *GemmColumnPanels(k, n, 16, Encoding::kF16),
                          *BlockQuantizedWeight(k, n, Encoding::kF32, BlockOrder::kInputBlockMajor, 4)}) {
    auto packed = PackFloats(x.data(), l);
    ASSERT_TRUE(packed.ok()) << packed.status().ToString();
    EXPECT_EQ(static_cast<int64_t>(packed->size()), l.StorageBytes());
    auto y = UnpackFloats(packed->data(), packed->size(), l);
    ASSERT_TRUE(y.ok());
    EXPECT_EQ(*y, x) << LayoutToText(l);
  }
  auto b = Layout::Contiguous({3}, Encoding::kF32).BroadcastTo({2, 3});
  EXPECT_FALSE(PackFloats(x.data(), *b).ok());  // two logical elements, one slot
}

TEST(LayoutPackTest, BlockQuantizedKernelFeedMatchesRowMajorBlocks) {
  // The same weight quantized in stored order and in kernel-feed order decodes to the same
  // values: block order changes where blocks go, never what they hold.
  const int64_t n = 6, k = 96;
  std::vector<float> x(static_cast<size_t>(n * k));
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i) * 0.1f);
  for (Encoding e : {Encoding::kQ4_0, Encoding::kQ8_0, Encoding::kQ4Zp32}) {
    auto stored = BlockQuantizedWeight(n, k, e, BlockOrder::kRowMajor);
    auto feed = BlockQuantizedWeight(n, k, e, BlockOrder::kInputBlockMajor, 4);
    ASSERT_TRUE(stored.ok() && feed.ok());
    auto a = PackFloats(x.data(), *stored);
    auto b = PackFloats(x.data(), *feed);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*UnpackFloats(a->data(), a->size(), *stored), *UnpackFloats(b->data(), b->size(), *feed))
        << LayoutToText(*feed);
  }
}

}  // namespace
}  // namespace vt
