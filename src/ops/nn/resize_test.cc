#include <gtest/gtest.h>

#include <cmath>

#include "ops/nn/resize_plan.h"
#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

// Reference: every output element is the tensor product of the per-axis plans.
std::vector<double> NaiveResize(const Tensor& x, const std::vector<ResizeAxisPlan>& plans, double extrap) {
  const int r = x.rank();
  Shape out(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) out[static_cast<size_t>(d)] = plans[static_cast<size_t>(d)].out;
  std::vector<double> v(static_cast<size_t>(NumElements(out)));
  std::vector<int64_t> pos(static_cast<size_t>(r), 0);
  for (size_t k = 0; k < v.size(); ++k) {
    bool ex = false;
    for (int d = 0; d < r; ++d)
      ex |= plans[static_cast<size_t>(d)].extrapolate[static_cast<size_t>(pos[static_cast<size_t>(d)])] != 0;
    double acc = 0;
    if (ex) {
      acc = extrap;
    } else {
      std::vector<int> t(static_cast<size_t>(r), 0);
      while (true) {
        double w = 1;
        int64_t flat = 0;
        for (int d = 0; d < r; ++d) {
          const auto& p = plans[static_cast<size_t>(d)];
          const size_t at = static_cast<size_t>(pos[static_cast<size_t>(d)] * p.taps + t[static_cast<size_t>(d)]);
          w *= p.w[at];
          flat = flat * x.dim(d) + p.idx[at];
        }
        acc += w * x.GetDouble(flat);
        int d = r - 1;
        for (; d >= 0; --d) {
          if (++t[static_cast<size_t>(d)] < plans[static_cast<size_t>(d)].taps) break;
          t[static_cast<size_t>(d)] = 0;
        }
        if (d < 0) break;
      }
    }
    v[k] = acc;
    for (int d = r - 1; d >= 0; --d) {
      if (++pos[static_cast<size_t>(d)] < out[static_cast<size_t>(d)]) break;
      pos[static_cast<size_t>(d)] = 0;
    }
  }
  return v;
}

// Runs Resize-13 with `scales` and compares with the naive product of plans.
void CheckAgainstNaive(const Shape& shape, const std::vector<double>& scales, const std::string& mode,
                       const std::string& coord, int threads_unused = 1) {
  std::vector<double> vals(static_cast<size_t>(NumElements(shape)));
  for (size_t i = 0; i < vals.size(); ++i) vals[i] = std::sin(static_cast<double>(i) * 0.37) * 10;
  Tensor x = F32(shape, vals);
  std::vector<double> roi;
  for (size_t d = 0; d < shape.size(); ++d) roi.push_back(d % 2 ? 0.1 : -0.2);
  for (size_t d = 0; d < shape.size(); ++d) roi.push_back(d % 2 ? 0.8 : 1.1);
  const int64_t r = static_cast<int64_t>(shape.size());
  OpCall c{"Resize", 13,
           {AttrString("mode", mode), AttrString("coordinate_transformation_mode", coord),
            AttrFloat("extrapolation_value", -7)},
           {x, F32({2 * r}, roi), F32({r}, scales)}};
  Tensor y = RunOne(c);
  std::vector<ResizeAxisPlan> plans;
  for (size_t d = 0; d < shape.size(); ++d) {
    ResizeAxisParams p;
    p.in = shape[d];
    p.scale = scales[d];
    p.mode = *ParseResizeMode(mode);
    p.coord = *ParseCoordMode(coord);
    if (p.coord == CoordMode::kTfCropAndResize) {
      p.roi_start = roi[d];
      p.roi_end = roi[d + shape.size()];
    }
    double extent = static_cast<double>(p.in) * scales[d];
    if (p.coord == CoordMode::kTfCropAndResize) extent *= p.roi_end - p.roi_start;
    p.out = static_cast<int64_t>(std::floor(extent));
    p.out_length = static_cast<double>(p.in) * scales[d];
    plans.push_back(BuildResizeAxisPlan(p));
  }
  auto want = NaiveResize(x, plans, -7);
  auto got = Values(y);
  ASSERT_EQ(got.size(), want.size()) << ShapeToString(shape);
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4) << mode << " " << coord << " " << ShapeToString(shape) << " @" << i;
}

TEST(ResizeOp, PlanePathSeparablePathAndNearestAgreeWithNaive) {
  for (const std::string mode : {"nearest", "linear", "cubic"})
    for (const std::string coord : {"half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"}) {
      CheckAgainstNaive({1, 2, 7, 5}, {1, 1, 2.5, 0.6}, mode, coord);   // plane path
      CheckAgainstNaive({3, 5, 4}, {1.5, 0.8, 1}, mode, coord);         // separable passes
      CheckAgainstNaive({2, 3, 4, 5}, {1, 2, 1.5, 1}, mode, coord);     // separable, non-last
      CheckAgainstNaive({17}, {0.5}, mode, coord);                      // 1-D
      CheckAgainstNaive({1, 1, 33, 65}, {1, 1, 2, 2}, mode, coord);     // upsample x2
    }
}

TEST(ResizeOp, SpecExampleLinearUpsample) {
  OpCall c{"Resize", 13, {AttrString("mode", "linear")},
           {F32({1, 1, 2, 2}, {1, 2, 3, 4}), Tensor(), F32({4}, {1, 1, 2, 2})}, {false, true, false}};
  EXPECT_EQ(Values(RunOne(c)),
            (std::vector<double>{1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25,
                                 3.75, 4}));
}

TEST(ResizeOp, SizesAndDtypes) {
  OpCall c{"Resize", 13, {},
           {MakeTensor(DType::kUInt8, {1, 4}, {0, 10, 20, 255}), Tensor(), Tensor(), I64({2}, {1, 2})},
           {false, true, true, false}};
  Tensor y = RunOne(c);
  EXPECT_EQ(y.dtype(), DType::kUInt8);
  EXPECT_EQ(y.shape(), (Shape{1, 2}));
  // nearest half_pixel round_prefer_floor: x = 0.5, 2.5 -> 0, 2
  EXPECT_EQ(Values(y), (std::vector<double>{0, 20}));
  c.attrs = {AttrString("mode", "linear")};
  EXPECT_EQ(Values(RunOne(c)), (std::vector<double>{5, 138}));  // 137.5 rounds to even
  Tensor s = Tensor::Empty(DType::kString, {2});
  s.mutable_data<std::string>()[0] = "a";
  s.mutable_data<std::string>()[1] = "b";
  OpCall str{"Resize", 13, {}, {s, Tensor(), F32({1}, {2})}, {false, true, false}};
  Tensor ys = RunOne(str);
  ASSERT_EQ(ys.numel(), 4);
  EXPECT_EQ(ys.data<std::string>()[2], "b");
}

TEST(ResizeOp, LegacyUpsampleAndResize10) {
  OpCall up7{"Upsample", 7, {AttrFloats("scales", {1, 2})}, {F32({1, 2}, {1, 2})}};
  EXPECT_EQ(Values(RunOne(up7)), (std::vector<double>{1, 1, 2, 2}));
  OpCall up9{"Upsample", 9, {AttrString("mode", "linear")}, {F32({1, 2}, {1, 2}), F32({2}, {1, 2})}};
  EXPECT_EQ(Values(RunOne(up9)), (std::vector<double>{1, 1.5, 2, 2}));
  OpCall r10{"Resize", 10, {}, {F32({1, 4}, {1, 2, 3, 4}), F32({2}, {1, 0.6})}};
  EXPECT_EQ(Values(RunOne(r10)), (std::vector<double>{1, 3}));
}

TEST(ResizeOp, KeepAspectRatioAndAxes) {
  OpCall c{"Resize", 18, {AttrString("keep_aspect_ratio_policy", "not_larger"), AttrInts("axes", {2, 3})},
           {Iota({1, 1, 4, 8}), Tensor(), Tensor(), I64({2}, {2, 2})}, {false, true, true, false}};
  EXPECT_EQ(RunOne(c).shape(), (Shape{1, 1, 1, 2}));
  c.attrs[0] = AttrString("keep_aspect_ratio_policy", "not_smaller");
  EXPECT_EQ(RunOne(c).shape(), (Shape{1, 1, 2, 4}));
}

TEST(ResizeOp, Errors) {
  Tensor x = Iota({1, 4});
  OpCall both{"Resize", 13, {}, {x, Tensor(), F32({2}, {1, 2}), I64({2}, {1, 8})}, {false, true}};
  EXPECT_FALSE(both.Run().ok());
  OpCall none{"Resize", 13, {}, {x}};
  EXPECT_FALSE(none.Run().ok());
  OpCall len{"Resize", 13, {}, {x, Tensor(), F32({1}, {2})}, {false, true}};
  EXPECT_FALSE(len.Run().ok());
  OpCall neg{"Resize", 13, {}, {x, Tensor(), F32({2}, {1, -2})}, {false, true}};
  EXPECT_FALSE(neg.Run().ok());
  OpCall mode{"Resize", 13, {AttrString("mode", "area")}, {x, Tensor(), F32({2}, {1, 2})}, {false, true}};
  EXPECT_FALSE(mode.Run().ok());
  OpCall empty{"Resize", 13, {}, {Iota({1, 0}), Tensor(), Tensor(), I64({2}, {1, 3})}, {false, true, true}};
  EXPECT_FALSE(empty.Run().ok());
  OpCall huge{"Resize", 13, {}, {x, Tensor(), F32({2}, {1e20f, 1e20f})}, {false, true}};
  EXPECT_FALSE(huge.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
