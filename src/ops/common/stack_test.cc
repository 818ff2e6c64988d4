// Stacking / axis helpers on strided inputs, strings and empty lists.
#include "ops/common/stack.h"

#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::Iota;
using testing::Values;

TEST(StackTest, StacksStridedItemsAndMovesAxis) {
  Tensor a = Iota({2, 3});
  Tensor col = SelectAlongAxis(a, 1, 2);  // strided view [2, 5]
  EXPECT_EQ(Values(col), std::vector<double>({2, 5}));
  auto s = StackTensors({col, SelectAlongAxis(a, 1, 0)}, DType::kFloat32, {});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->shape(), Shape({2, 2}));
  EXPECT_EQ(Values(*s), std::vector<double>({2, 5, 0, 3}));
  Tensor m = MoveLeadingAxis(*s, 1);
  EXPECT_EQ(Values(m), std::vector<double>({2, 0, 5, 3}));
  EXPECT_EQ(Values(NarrowAlongAxis(a, 1, 1, 2)), std::vector<double>({1, 2, 4, 5}));
}

TEST(StackTest, EmptyListUsesGivenTypeAndMismatchesFail) {
  auto e = StackTensors({}, DType::kInt64, {4});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->shape(), Shape({0, 4}));
  EXPECT_EQ(e->dtype(), DType::kInt64);
  EXPECT_FALSE(StackTensors({Iota({2}), Iota({3})}, DType::kFloat32, {}).ok());
  Tensor s = Tensor::Empty(DType::kString, {2});
  s.mutable_data<std::string>()[0] = "x";
  s.mutable_data<std::string>()[1] = "y";
  auto st = StackTensors({s, s}, DType::kString, {});
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->data<std::string>()[3], "y");
}

}  // namespace
}  // namespace vt::ops
