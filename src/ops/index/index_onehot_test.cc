#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(OneHotOp, AxesNegativeAndOutOfRangeIndices) {
  OpCall c{"OneHot", 11, {}, {I64({3}, {0, -1, 5}), F32({}, {3}), F32({2}, {0, 9})}};
  Tensor y = RunOne(c);
  EXPECT_EQ(y.shape(), (Shape{3, 3}));
  EXPECT_EQ(Values(y), (std::vector<double>{9, 0, 0, 0, 0, 9, 0, 0, 0}));
  OpCall axis0{"OneHot", 11, {AttrInt("axis", 0)}, {I64({2}, {1, 0}), I64({1}, {2}), I64({2}, {-1, 1})}};
  Tensor z = RunOne(axis0);
  EXPECT_EQ(z.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values(z), (std::vector<double>{-1, 1, 1, -1}));
  OpCall fidx{"OneHot", 11, {AttrInt("axis", -2)}, {F32({1, 2}, {1.7, 0}), F32({}, {2}), F32({2}, {0, 1})}};
  Tensor w = RunOne(fidx);
  EXPECT_EQ(w.shape(), (Shape{1, 2, 2}));
  EXPECT_EQ(Values(w), (std::vector<double>{0, 1, 1, 0}));
}

TEST(OneHotOp, Errors) {
  OpCall depth{"OneHot", 11, {}, {I64({1}, {0}), F32({}, {0}), F32({2}, {0, 1})}};
  EXPECT_FALSE(depth.Run().ok());
  OpCall values{"OneHot", 11, {}, {I64({1}, {0}), F32({}, {2}), F32({3}, {0, 1, 2})}};
  EXPECT_FALSE(values.Run().ok());
  OpCall axis{"OneHot", 11, {AttrInt("axis", 3)}, {I64({1}, {0}), F32({}, {2}), F32({2}, {0, 1})}};
  EXPECT_FALSE(axis.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
