#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

// Grid that samples pixel centres exactly (align_corners=1): output == input.
Tensor IdentityGrid(int64_t h, int64_t w) {
  std::vector<double> g;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      g.push_back(w > 1 ? -1.0 + 2.0 * static_cast<double>(x) / static_cast<double>(w - 1) : 0.0);
      g.push_back(h > 1 ? -1.0 + 2.0 * static_cast<double>(y) / static_cast<double>(h - 1) : 0.0);
    }
  return F32({1, h, w, 2}, g);
}

TEST(GridSampleOp, IdentityGridReproducesInput) {
  Tensor x = Iota({1, 2, 3, 4});
  for (const std::string mode : {"bilinear", "nearest", "bicubic"}) {
    OpCall c{"GridSample", 16, {AttrString("mode", mode), AttrInt("align_corners", 1)}, {x, IdentityGrid(3, 4)}};
    auto got = Values(RunOne(c));
    auto want = Values(x);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << mode;
  }
}

TEST(GridSampleOp, PaddingModesOutsideTheImage) {
  Tensor x = F32({1, 1, 1, 2}, {1, 3});
  // x = 2.0 (far right), align_corners=0: denormalised ((2+1)*2-1)/2 = 2.5
  Tensor grid = F32({1, 1, 1, 2}, {2.0, 0.0});
  OpCall zeros{"GridSample", 16, {}, {x, grid}};
  EXPECT_NEAR(RunOne(zeros).GetDouble(0), 0.0, 1e-6);
  OpCall border{"GridSample", 16, {AttrString("padding_mode", "border")}, {x, grid}};
  EXPECT_NEAR(RunOne(border).GetDouble(0), 3.0, 1e-6);
  // reflection about 1.5 (= W - 0.5): 2.5 -> 0.5, halfway between the pixels.
  OpCall refl{"GridSample", 16, {AttrString("padding_mode", "reflection")}, {x, grid}};
  EXPECT_NEAR(RunOne(refl).GetDouble(0), 2.0, 1e-6);
}

TEST(GridSampleOp, Errors) {
  OpCall shape{"GridSample", 16, {}, {Iota({1, 1, 2, 2}), F32({1, 2, 2, 3}, {})}};
  EXPECT_FALSE(shape.Run().ok());
  OpCall batch{"GridSample", 16, {}, {Iota({1, 1, 2, 2}), F32({2, 2, 2, 2}, {})}};
  EXPECT_FALSE(batch.Run().ok());
  OpCall mode{"GridSample", 16, {AttrString("mode", "area")}, {Iota({1, 1, 2, 2}), IdentityGrid(2, 2)}};
  EXPECT_FALSE(mode.Run().ok());
  OpCall rank{"GridSample", 16, {}, {Iota({1, 1, 2, 2, 2}), F32({1, 1, 1, 1, 3}, {0, 0, 0})}};
  EXPECT_FALSE(rank.Run().ok());  // 5-D needs opset 20
}

}  // namespace
}  // namespace vt::ops::testing
