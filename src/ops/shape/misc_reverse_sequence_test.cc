#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(ReverseSequenceOp, TimeMajorAndBatchMajor) {
  // [time=3, batch=2]: x[t, b] = 2t + b
  OpCall c{"ReverseSequence", 10, {}, {Iota({3, 2}), I64({2}, {3, 1})}};
  EXPECT_EQ(Values(RunOne(c)), (std::vector<double>{4, 1, 2, 3, 0, 5}));
  OpCall bm{"ReverseSequence", 10, {AttrInt("batch_axis", 0), AttrInt("time_axis", 1)},
            {Iota({2, 3, 2}), I64({2}, {2, 0})}};
  EXPECT_EQ(Values(RunOne(bm)), (std::vector<double>{2, 3, 0, 1, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(ReverseSequenceOp, Errors) {
  OpCall len{"ReverseSequence", 10, {}, {Iota({3, 2}), I64({2}, {4, 1})}};
  EXPECT_FALSE(len.Run().ok());
  OpCall count{"ReverseSequence", 10, {}, {Iota({3, 2}), I64({3}, {1, 1, 1})}};
  EXPECT_FALSE(count.Run().ok());
  OpCall axes{"ReverseSequence", 10, {AttrInt("batch_axis", 2)}, {Iota({3, 2, 2}), I64({2}, {1, 1})}};
  EXPECT_FALSE(axes.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
