#include "ops/reduce/reduce_plan.h"

#include <gtest/gtest.h>

namespace vt::ops {
namespace {

TEST(ReducePlan, InnermostAxesNeedNoCopy) {
  ReducePlan p = PlanReduce({2, 3, 4}, {1, 2}, true);
  EXPECT_TRUE(p.perm.empty());
  EXPECT_EQ(p.outer, 2);
  EXPECT_EQ(p.reduce, 12);
  EXPECT_EQ(p.inner, 1);
  EXPECT_EQ(p.out_shape, (Shape{2, 1, 1}));
}

TEST(ReducePlan, LeadingAndMiddleAxes) {
  ReducePlan lead = PlanReduce({5, 3, 4}, {0}, false);
  EXPECT_TRUE(lead.perm.empty());
  EXPECT_EQ(lead.outer, 1);
  EXPECT_EQ(lead.reduce, 5);
  EXPECT_EQ(lead.inner, 12);
  EXPECT_EQ(lead.out_shape, (Shape{3, 4}));

  ReducePlan mid = PlanReduce({5, 3, 4}, {1}, true);
  EXPECT_EQ(mid.outer, 5);
  EXPECT_EQ(mid.reduce, 3);
  EXPECT_EQ(mid.inner, 4);
}

TEST(ReducePlan, SizeOneDimsDoNotSplitARun) {
  // Axes {0, 2} of [3, 1, 4, 5] reduce one run once the size-1 dim is dropped.
  ReducePlan p = PlanReduce({3, 1, 4, 5}, {0, 2}, false);
  EXPECT_TRUE(p.perm.empty());
  EXPECT_EQ(p.outer, 1);
  EXPECT_EQ(p.reduce, 12);
  EXPECT_EQ(p.inner, 5);
  EXPECT_EQ(p.out_shape, (Shape{1, 5}));
}

TEST(ReducePlan, SeparatedAxesAskForATransposedCopy) {
  ReducePlan p = PlanReduce({2, 3, 4, 5}, {0, 2}, true);
  EXPECT_EQ(p.perm, (std::vector<int64_t>{1, 3, 0, 2}));
  EXPECT_EQ(p.outer, 15);
  EXPECT_EQ(p.reduce, 8);
  EXPECT_EQ(p.inner, 1);
  EXPECT_EQ(p.out_shape, (Shape{1, 3, 1, 5}));

  Tensor x = Tensor::Empty(DType::kFloat32, {2, 3, 4, 5});
  for (int64_t i = 0; i < x.numel(); ++i) x.mutable_data<float>()[i] = static_cast<float>(i);
  Tensor a = ArrangeForReduce(x, p);
  EXPECT_EQ(a.shape(), (Shape{3, 5, 2, 4}));
  // a[j=1, l=2, i=1, k=3] = x[1, 1, 3, 2]
  EXPECT_EQ(a.data<float>()[((1 * 5 + 2) * 2 + 1) * 4 + 3], ((1 * 3 + 1) * 4 + 3) * 5 + 2);
}

TEST(ReducePlan, EmptyAxesAndEmptyTensors) {
  ReducePlan none = PlanReduce({2, 3}, {}, true);
  EXPECT_EQ(none.reduce, 1);
  EXPECT_EQ(none.outer * none.inner, 6);
  ReducePlan zero = PlanReduce({2, 0, 3}, {1}, false);
  EXPECT_EQ(zero.reduce, 0);
  EXPECT_EQ(zero.out_shape, (Shape{2, 3}));
  ReducePlan scalar = PlanReduce({}, {}, true);
  EXPECT_EQ(scalar.outer * scalar.reduce * scalar.inner, 1);
  EXPECT_TRUE(scalar.out_shape.empty());
}

TEST(ReducePlan, NormalizeAxes) {
  auto ok = NormalizeAxes({-1, 0}, 3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, (std::vector<int64_t>{0, 2}));
  EXPECT_FALSE(NormalizeAxes({3}, 3).ok());
  EXPECT_FALSE(NormalizeAxes({-4}, 3).ok());
  EXPECT_FALSE(NormalizeAxes({1, -2}, 3).ok());  // repeated
}

}  // namespace
}  // namespace vt::ops
