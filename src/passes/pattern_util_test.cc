#include "passes/pattern_util.h"

#include <gtest/gtest.h>

namespace vt {
namespace {

std::vector<float> ValuesOf(const Tensor& t) {
  const Tensor c = t.Contiguous();
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}

TEST(AsRowInitializerTest, RankOneIsKept) {
  Graph g;
  g.SetInitializer("gamma", Tensor::FromF32({1, 2, 3}, {3}));
  EXPECT_EQ(AsRowInitializer(g, "gamma"), "gamma");
  EXPECT_EQ(g.initializers.size(), 1u);
}

TEST(AsRowInitializerTest, LeadingOnesAreDroppedIntoANewInitializer) {
  Graph g;
  g.SetInitializer("gamma", Tensor::FromF32({1, 2, 3, 4, 5}, {1, 1, 5}));
  g.SetInitializer("gamma.vt_row", Tensor::FromF32({9}, {1}));  // the first fresh name is taken
  const std::string row = AsRowInitializer(g, "gamma");
  EXPECT_EQ(row, "gamma.vt_row.1");
  const Tensor* t = g.FindInitializer(row);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->shape(), (Shape{5}));
  EXPECT_EQ(ValuesOf(*t), (std::vector<float>{1, 2, 3, 4, 5}));
  // The original stays (its readers are rewritten by the caller).
  ASSERT_NE(g.FindInitializer("gamma"), nullptr);
  EXPECT_EQ(g.FindInitializer("gamma")->shape(), (Shape{1, 1, 5}));
}

}  // namespace
}  // namespace vt
