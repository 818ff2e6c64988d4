#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(ExpandOp, BroadcastViewBothWays) {
  Tensor x = Iota({3, 1});
  OpCall c{"Expand", 13, {}, {x, I64({3}, {2, 1, 4})}};
  Tensor y = RunOne(c);
  EXPECT_EQ(y.storage(), x.storage());
  EXPECT_EQ(y.shape(), (Shape{2, 3, 4}));
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(y.GetDouble(i), (i / 4) % 3);
}

TEST(ExpandOp, ShapeSmallerThanInputKeepsInputDims) {
  OpCall c{"Expand", 13, {}, {Iota({2, 3}), I64({1}, {1})}};
  EXPECT_EQ(RunOne(c).shape(), (Shape{2, 3}));
}

TEST(ExpandOp, Errors) {
  OpCall mismatch{"Expand", 13, {}, {Iota({2, 3}), I64({1}, {4})}};
  EXPECT_FALSE(mismatch.Run().ok());
  OpCall neg{"Expand", 13, {}, {Iota({2, 3}), I64({1}, {-1})}};
  EXPECT_FALSE(neg.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
