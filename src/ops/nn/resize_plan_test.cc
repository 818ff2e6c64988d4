#include "ops/nn/resize_plan.h"

#include <gtest/gtest.h>

namespace vt::ops {
namespace {

ResizeAxisParams Params(int64_t in, int64_t out, double scale, ResizeMode mode, CoordMode coord) {
  ResizeAxisParams p;
  p.in = in;
  p.out = out;
  p.scale = scale;
  p.mode = mode;
  p.coord = coord;
  return p;
}

TEST(ResizePlan, CoordinateTransforms) {
  auto p = Params(4, 8, 2.0, ResizeMode::kLinear, CoordMode::kHalfPixel);
  EXPECT_DOUBLE_EQ(ResizeSourceCoord(p, 0), -0.25);
  p.coord = CoordMode::kAsymmetric;
  EXPECT_DOUBLE_EQ(ResizeSourceCoord(p, 3), 1.5);
  p.coord = CoordMode::kAlignCorners;
  EXPECT_DOUBLE_EQ(ResizeSourceCoord(p, 7), 3.0);
  // With scales, align_corners uses in * scale (not the floored length), like the reference.
  auto q = Params(4, 2, 0.6, ResizeMode::kLinear, CoordMode::kAlignCorners);
  q.out_length = 2.4;
  EXPECT_NEAR(ResizeSourceCoord(q, 1), 3.0 / 1.4, 1e-12);
  auto t = Params(5, 3, 0.6, ResizeMode::kLinear, CoordMode::kTfCropAndResize);
  t.roi_start = 0.25;
  t.roi_end = 0.75;
  EXPECT_DOUBLE_EQ(ResizeSourceCoord(t, 0), 1.0);
  EXPECT_DOUBLE_EQ(ResizeSourceCoord(t, 2), 3.0);
  p.coord = CoordMode::kPytorchHalfPixel;
  p.out = 1;
  p.out_length = 0;
  EXPECT_DOUBLE_EQ(ResizeSourceCoord(p, 0), 0.0);
}

TEST(ResizePlan, NearestRoundingModes) {
  // asymmetric with scale 0.4: x = j / 0.4 -> 0, 2.5, 5
  auto p = Params(6, 3, 0.4, ResizeMode::kNearest, CoordMode::kAsymmetric);
  const std::vector<std::pair<NearestMode, std::vector<int64_t>>> cases = {
      {NearestMode::kRoundPreferFloor, {0, 2, 5}}, {NearestMode::kRoundPreferCeil, {0, 3, 5}},
      {NearestMode::kFloor, {0, 2, 5}}, {NearestMode::kCeil, {0, 3, 5}}};
  for (const auto& [mode, want] : cases) {
    p.nearest = mode;
    ResizeAxisPlan plan = BuildResizeAxisPlan(p);
    EXPECT_EQ(plan.idx, want);
  }
  // Legacy (Upsample / Resize-10): ceil when downsampling.
  auto l = Params(4, 2, 0.6, ResizeMode::kNearest, CoordMode::kAsymmetric);
  l.nearest = NearestMode::kLegacy;
  EXPECT_EQ(BuildResizeAxisPlan(l).idx, (std::vector<int64_t>{0, 2}));
}

TEST(ResizePlan, WeightsSumToOneAndIndicesClamped) {
  for (ResizeMode mode : {ResizeMode::kLinear, ResizeMode::kCubic})
    for (bool antialias : {false, true})
      for (bool exclude : {false, true})
        for (auto [in, out] : std::vector<std::pair<int64_t, int64_t>>{{7, 17}, {17, 7}, {5, 5}, {1, 3}}) {
          auto p = Params(in, out, static_cast<double>(out) / static_cast<double>(in), mode,
                          CoordMode::kHalfPixel);
          p.antialias = antialias;
          p.exclude_outside = exclude;
          ResizeAxisPlan plan = BuildResizeAxisPlan(p);
          for (int64_t j = 0; j < out; ++j) {
            double sum = 0;
            for (int t = 0; t < plan.taps; ++t) {
              const int64_t i = plan.idx[static_cast<size_t>(j * plan.taps + t)];
              EXPECT_GE(i, 0);
              EXPECT_LT(i, in);
              sum += plan.w[static_cast<size_t>(j * plan.taps + t)];
            }
            EXPECT_NEAR(sum, 1.0, 1e-5);
          }
        }
}

TEST(ResizePlan, IdentityAndExtrapolation) {
  auto p = Params(5, 5, 1.0, ResizeMode::kCubic, CoordMode::kHalfPixel);
  EXPECT_TRUE(BuildResizeAxisPlan(p).identity);
  p.scale = 1.25;  // same length, different grid
  EXPECT_FALSE(BuildResizeAxisPlan(p).identity);
  auto t = Params(4, 3, 0.75, ResizeMode::kLinear, CoordMode::kTfCropAndResize);
  t.roi_start = -0.5;
  t.roi_end = 0.5;
  ResizeAxisPlan plan = BuildResizeAxisPlan(t);
  EXPECT_TRUE(plan.any_extrapolate);
  EXPECT_EQ(plan.extrapolate, (std::vector<uint8_t>{1, 0, 0}));
}

TEST(ResizePlan, ParseNames) {
  EXPECT_TRUE(ParseResizeMode("cubic").ok());
  EXPECT_FALSE(ParseResizeMode("area").ok());
  EXPECT_TRUE(ParseCoordMode("half_pixel_symmetric").ok());
  EXPECT_FALSE(ParseCoordMode("center").ok());
  EXPECT_FALSE(ParseNearestMode("round").ok());
}

}  // namespace
}  // namespace vt::ops
