#include <gtest/gtest.h>

#include <limits>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

// numpy-style reference for one axis of a 1-D tensor of length n.
std::vector<double> NaiveSlice1D(int64_t n, int64_t start, int64_t end, int64_t step) {
  auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); };
  if (start < 0) start = std::max<int64_t>(start, -n - 1) + n;
  if (end < 0) end = std::max<int64_t>(end, -n - 1) + n;
  std::vector<double> v;
  if (step > 0) {
    start = clamp(start, 0, n);
    end = clamp(end, 0, n);
    for (int64_t i = start; i < end; i += step) v.push_back(static_cast<double>(i));
  } else {
    start = clamp(start, 0, n - 1);
    end = clamp(end, -1, n - 1);
    for (int64_t i = start; i > end; i += step) v.push_back(static_cast<double>(i));
  }
  return v;
}

TEST(SliceOp, MatchesReferenceIncludingClampingAndNegativeSteps) {
  const int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
  for (int64_t n : std::vector<int64_t>{0, 1, 7}) {
    for (int64_t start : std::vector<int64_t>{small, -9, -3, -1, 0, 2, 6, 9, big})
      for (int64_t end : std::vector<int64_t>{small, -9, -2, 0, 3, 7, 9, big})
        for (int64_t step : std::vector<int64_t>{-3, -1, 1, 2}) {
          OpCall c{"Slice", 13, {}, {Iota({n}), I64({1}, {0}), I64({1}, {0}), I64({1}, {0}), I64({1}, {0})}};
          c.inputs[1] = Tensor::FromI64({start});
          c.inputs[2] = Tensor::FromI64({end});
          c.inputs[4] = Tensor::FromI64({step});
          Tensor y = RunOne(c);
          EXPECT_EQ(Values(y), NaiveSlice1D(n, start, end, step))
              << n << " " << start << " " << end << " " << step;
        }
  }
}

TEST(SliceOp, IsAViewAndHandlesAxes) {
  Tensor x = Iota({3, 4});
  OpCall c{"Slice", 13, {}, {x, I64({1}, {-1}), I64({1}, {0}), I64({1}, {-1}), I64({1}, {-2})}};
  Tensor y = RunOne(c);
  EXPECT_EQ(y.storage(), x.storage());
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_EQ(Values(y), (std::vector<double>{3, 1, 7, 5, 11, 9}));
}

TEST(SliceOp, Opset1Attributes) {
  OpCall c{"Slice", 1, {AttrInts("starts", {1}), AttrInts("ends", {1000}), AttrInts("axes", {1})},
           {Iota({2, 3})}};
  EXPECT_EQ(Values(RunOne(c)), (std::vector<double>{1, 2, 4, 5}));
}

TEST(SliceOp, Errors) {
  OpCall step0{"Slice", 13, {}, {Iota({4}), I64({1}, {0}), I64({1}, {2}), I64({1}, {0}), I64({1}, {0})}};
  EXPECT_FALSE(step0.Run().ok());
  OpCall bad_axis{"Slice", 13, {}, {Iota({4}), I64({1}, {0}), I64({1}, {2}), I64({1}, {3})}};
  EXPECT_FALSE(bad_axis.Run().ok());
  OpCall dup_axis{"Slice", 13, {}, {Iota({4, 4}), I64({2}, {0, 0}), I64({2}, {2, 2}), I64({2}, {0, -2})}};
  EXPECT_FALSE(dup_axis.Run().ok());
  OpCall len{"Slice", 13, {}, {Iota({4}), I64({2}, {0, 0}), I64({1}, {2})}};
  EXPECT_FALSE(len.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
