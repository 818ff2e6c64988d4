#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(CumSumOp, ExclusiveReverseCombinations) {
  const Tensor x = F32({5}, {1, 2, 3, 4, 5});
  const std::vector<std::pair<std::pair<int, int>, std::vector<double>>> cases = {
      {{0, 0}, {1, 3, 6, 10, 15}},
      {{1, 0}, {0, 1, 3, 6, 10}},
      {{0, 1}, {15, 14, 12, 9, 5}},
      {{1, 1}, {14, 12, 9, 5, 0}}};
  for (const auto& [flags, want] : cases) {
    OpCall c{"CumSum", 14, {AttrInt("exclusive", flags.first), AttrInt("reverse", flags.second)},
             {x, I64({}, {0})}};
    EXPECT_EQ(Values(RunOne(c)), want);
  }
}

TEST(CumSumOp, AxisAndIntegerTypes) {
  OpCall c{"CumSum", 14, {}, {I64({2, 3}, {1, 2, 3, 4, 5, 6}), MakeTensor(DType::kInt32, {1}, {-2})}};
  EXPECT_EQ(Values(RunOne(c)), (std::vector<double>{1, 2, 3, 5, 7, 9}));
  OpCall bad{"CumSum", 14, {}, {Iota({2}), I64({}, {1})}};
  EXPECT_FALSE(bad.Run().ok());
  OpCall faxis{"CumSum", 14, {}, {Iota({2}), F32({}, {0})}};
  EXPECT_FALSE(faxis.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
