// NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss: reductions, weights, ignore_index,
// spatial dims, the log_prob output and out-of-range targets.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::AttrString;
using testing::F32;
using testing::I64;
using testing::OpCall;
using testing::RunOne;
using testing::Values;

TEST(NllLoss, ReductionsWeightsAndIgnoreIndex) {
  Tensor x = F32({2, 3}, {-1, -2, -3, -4, -5, -6});
  Tensor t = I64({2}, {2, 0});
  EXPECT_EQ(Values(RunOne(OpCall{"NegativeLogLikelihoodLoss", 13, {AttrString("reduction", "none")}, {x, t}})),
            (std::vector<double>{3, 4}));
  EXPECT_EQ(Values(RunOne(OpCall{"NegativeLogLikelihoodLoss", 13, {}, {x, t}})), std::vector<double>{3.5});
  Tensor w = F32({3}, {1, 0.5, 2});
  // (2*3 + 1*4) / (2 + 1)
  EXPECT_NEAR(Values(RunOne(OpCall{"NegativeLogLikelihoodLoss", 13, {}, {x, t, w}}))[0], 10.0 / 3, 1e-6);
  EXPECT_EQ(Values(RunOne(OpCall{"NegativeLogLikelihoodLoss", 13,
                                 {AttrString("reduction", "sum"), AttrInt("ignore_index", 0)}, {x, t, w}})),
            std::vector<double>{6});
  EXPECT_EQ(Values(RunOne(OpCall{"NegativeLogLikelihoodLoss", 13, {AttrInt("ignore_index", 2)}, {x, t}})),
            std::vector<double>{4});
  EXPECT_FALSE((OpCall{"NegativeLogLikelihoodLoss", 13, {}, {x, I64({2}, {3, 0})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"NegativeLogLikelihoodLoss", 13, {}, {x, I64({3}, {0, 0, 0})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"NegativeLogLikelihoodLoss", 13, {AttrString("reduction", "avg")}, {x, t}}.Run().ok()));
}

TEST(NllLoss, SpatialDims) {
  // [N=1, C=2, d=3]
  Tensor x = F32({1, 2, 3}, {-1, -2, -3, -4, -5, -6});
  Tensor y = RunOne(OpCall{"NegativeLogLikelihoodLoss", 13, {AttrString("reduction", "none")},
                           {x, I64({1, 3}, {1, 0, 1})}});
  EXPECT_EQ(y.shape(), (Shape{1, 3}));
  EXPECT_EQ(Values(y), (std::vector<double>{4, 2, 6}));
}

TEST(SoftmaxCrossEntropy, LossAndLogProb) {
  Tensor x = F32({2, 2}, {0, 0, 1, 3});
  OpCall c{"SoftmaxCrossEntropyLoss", 13, {AttrString("reduction", "sum")}, {x, I64({2}, {0, 1})}};
  c.num_outputs = 2;
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const double lp1 = -std::log1p(std::exp(-2.0));
  EXPECT_NEAR(Values((*r)[0].tensor())[0], std::log(2.0) - lp1, 1e-6);
  const std::vector<double> lp = Values((*r)[1].tensor());
  EXPECT_NEAR(lp[0], -std::log(2.0), 1e-6);
  EXPECT_NEAR(lp[3], lp1, 1e-6);
  EXPECT_EQ((*r)[1].tensor().shape(), (Shape{2, 2}));
  Tensor all_ignored = RunOne(OpCall{"SoftmaxCrossEntropyLoss", 13, {AttrInt("ignore_index", 1)},
                                     {x, I64({2}, {1, 1})}});
  EXPECT_TRUE(std::isnan(Values(all_ignored)[0]));  // 0 / 0 as in the ONNX reference
}

}  // namespace
}  // namespace vt::ops
