// NonMaxSuppression and RoiAlign through their registered kernels.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

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
