// NonMaxSuppression and RoiAlign through their registered kernels.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/common/op_test_util.h"
#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::AttrString;
using testing::F32;
using testing::I64;
using testing::Iota;
using testing::OpCall;
using testing::Values;

TEST(NonMaxSuppressionTest, PerClassGreedySelection) {
  // Box 1 overlaps box 0 heavily (IoU 0.81); box 2 is disjoint.
  Tensor boxes = F32({1, 3, 4}, {0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 5, 1, 6});
  Tensor scores = F32({1, 2, 3}, {0.9, 0.8, 0.7, 0.1, 0.6, 0.65});
  OpCall c{"NonMaxSuppression", 11, {},
           {boxes, scores, I64({1}, {3}), F32({1}, {0.5}), F32({1}, {0.0})}};
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({4, 3}));
  EXPECT_EQ(Values((*r)[0].tensor()),
            std::vector<double>({0, 0, 0, 0, 0, 2, 0, 1, 2, 0, 1, 1}));
  // One box per class: the best of each.
  c.inputs[2] = I64({1}, {1});
  r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({0, 0, 0, 0, 1, 2}));
  // No max_output_boxes_per_class: nothing selected.
  OpCall none{"NonMaxSuppression", 11, {}, {boxes, scores}};
  r = none.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({0, 3}));
}

TEST(NonMaxSuppressionTest, CenterPointFormatAndErrors) {
  Tensor boxes = F32({1, 2, 4}, {0.5, 0.5, 1, 1, 0.5, 0.6, 1, 1});
  Tensor scores = F32({1, 1, 2}, {0.5, 0.9});
  OpCall c{"NonMaxSuppression", 11, {AttrInt("center_point_box", 1)},
           {boxes, scores, I64({1}, {5}), F32({1}, {0.5})}};
  auto r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({0, 0, 1}));
  c.inputs[1] = F32({1, 1, 3}, {0.5, 0.9, 1});
  EXPECT_FALSE(c.Run().ok());
  c.inputs[1] = scores;
  c.inputs[3] = F32({1}, {1.5});
  EXPECT_FALSE(c.Run().ok());
}

TEST(RoiAlignTest, AverageOfConstantRegionAndModes) {
  // X = 0..15 on a 4x4 plane; roi covering the top-left 2x2 pixels.
  Tensor x = Iota({1, 1, 4, 4});
  OpCall c{"RoiAlign", 16,
           {AttrInt("output_height", 1), AttrInt("output_width", 1), AttrInt("sampling_ratio", 1)},
           {x, F32({1, 4}, {0, 0, 2, 2}), I64({1}, {0})}};
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // half_pixel: roi spans pixels [-0.5, 1.5]; one sample at its centre (0.5, 0.5).
  EXPECT_NEAR(Values((*r)[0].tensor())[0], 2.5, 1e-6);
  c.attrs.push_back(AttrString("coordinate_transformation_mode", "output_half_pixel"));
  r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(Values((*r)[0].tensor())[0], 5.0, 1e-6);  // sample at (1, 1)
  c.attrs.push_back(AttrString("mode", "max"));
  c.attrs.push_back(AttrInt("output_height", 2));
  r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({1, 1, 2, 1}));
}

TEST(RoiAlignTest, Float16AndBFloat16MatchFloat32OnOddSizes) {
  // Inputs exact in both types (multiples of 1/8 below 16); float32 results rounded once.
  std::vector<double> xv(3 * 7 * 17);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<double>((i * 5) % 23) / 8.0;
  const std::vector<double> rv = {0.5, 1, 9.25, 6, 3, 0, 16, 4.5, 0, 2, 7, 6.75};
  for (const char* mode : {"avg", "max"}) {
    for (DType dt : {DType::kFloat16, DType::kBFloat16}) {
      auto call = [&](DType t) {
        return OpCall{"RoiAlign", 22,
                      {AttrInt("output_height", 3), AttrInt("output_width", 5),
                       AttrString("mode", mode)},
                      {testing::MakeTensor(t, {1, 3, 7, 17}, xv),
                       testing::MakeTensor(t, {3, 4}, rv), I64({3}, {0, 0, 0})}};
      };
      const Tensor ref = testing::RunOne(call(DType::kFloat32));
      const Tensor got = testing::RunOne(call(dt == DType::kFloat16 ? DType::kFloat16 : DType::kFloat32));
      ASSERT_EQ(got.shape(), Shape({3, 3, 3, 5}));
      if (dt == DType::kFloat16) {
        ASSERT_EQ(got.dtype(), DType::kFloat16);
        const std::vector<double> a = Values(ref), b = Values(got);
        for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(b[i], a[i], 2e-3 * (1 + std::fabs(a[i])));
      } else {
        Tensor xb = CastTensor(testing::MakeTensor(DType::kFloat32, {1, 3, 7, 17}, xv), DType::kBFloat16);
        Tensor rb = CastTensor(testing::MakeTensor(DType::kFloat32, {3, 4}, rv), DType::kBFloat16);
        OpCall c = call(DType::kFloat32);
        c.inputs[0] = xb;
        c.inputs[1] = rb;
        const Tensor gb = testing::RunOne(c);
        ASSERT_EQ(gb.dtype(), DType::kBFloat16);
        EXPECT_EQ(Values(gb), Values(CastTensor(ref, DType::kBFloat16)));
      }
    }
  }
}

TEST(RoiAlignTest, BadInputsAreErrors) {
  Tensor x = Iota({1, 1, 4, 4});
  OpCall c{"RoiAlign", 16, {}, {x, F32({1, 4}, {0, 0, 2, 2}), I64({1}, {1})}};
  EXPECT_FALSE(c.Run().ok());  // batch index out of range
  c.inputs[2] = I64({1}, {0});
  c.inputs[1] = F32({1, 4}, {0, 0, 1e30, 1e30});
  EXPECT_FALSE(c.Run().ok());  // unbounded adaptive sampling
  c.inputs[1] = F32({1, 3}, {0, 0, 1});
  EXPECT_FALSE(c.Run().ok());
}

}  // namespace
}  // namespace vt::ops
