#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

Tensor Bools(const std::vector<double>& v) {
  return MakeTensor(DType::kBool, {static_cast<int64_t>(v.size())}, v);
}

TEST(CompressOp, AxisAndFlattened) {
  OpCall c{"Compress", 11, {AttrInt("axis", 1)}, {Iota({2, 3}), Bools({0, 1})}};
  EXPECT_EQ(Values(RunOne(c)), (std::vector<double>{1, 4}));
  OpCall neg{"Compress", 11, {AttrInt("axis", -2)}, {Iota({2, 3}), Bools({1, 0})}};
  EXPECT_EQ(Values(RunOne(neg)), (std::vector<double>{0, 1, 2}));
  OpCall flat{"Compress", 11, {}, {Iota({2, 3}), Bools({0, 1, 0, 0, 1})}};
  Tensor y = RunOne(flat);
  EXPECT_EQ(y.shape(), (Shape{2}));
  EXPECT_EQ(Values(y), (std::vector<double>{1, 4}));
}

TEST(CompressOp, ConditionBeyondAxisIsAnError) {
  OpCall c{"Compress", 11, {AttrInt("axis", 0)}, {Iota({2, 3}), Bools({0, 0, 1})}};
  EXPECT_FALSE(c.Run().ok());
  OpCall ok_false{"Compress", 11, {AttrInt("axis", 0)}, {Iota({2, 3}), Bools({0, 1, 0})}};
  EXPECT_TRUE(ok_false.Run().ok());
}

TEST(NonZeroOp, CoordinatesInRowMajorOrder) {
  OpCall c{"NonZero", 13, {}, {F32({2, 3}, {0, 1, 0, -0.0, 2, 3})}};
  Tensor y = RunOne(c);
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values(y), (std::vector<double>{0, 1, 1, 1, 1, 2}));
  OpCall none{"NonZero", 13, {}, {Tensor::Zeros(DType::kInt32, {4})}};
  EXPECT_EQ(RunOne(none).shape(), (Shape{1, 0}));
  OpCall scalar{"NonZero", 13, {}, {F32({}, {5})}};
  EXPECT_EQ(RunOne(scalar).shape(), (Shape{1, 1}));
}

}  // namespace
}  // namespace vt::ops::testing
