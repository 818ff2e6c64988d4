#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

std::vector<double> ShapeOf(const Shape& s, std::vector<Attribute> attrs, int opset = 15) {
  OpCall c{"Shape", opset, std::move(attrs), {Tensor::Zeros(DType::kFloat32, s)}};
  return Values(RunOne(c));
}

TEST(ShapeOp, FullAndSliced) {
  EXPECT_EQ(ShapeOf({2, 3, 4}, {}), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(ShapeOf({2, 3, 4}, {AttrInt("start", 1)}), (std::vector<double>{3, 4}));
  EXPECT_EQ(ShapeOf({2, 3, 4}, {AttrInt("end", -1)}), (std::vector<double>{2, 3}));
  EXPECT_EQ(ShapeOf({2, 3, 4}, {AttrInt("start", -10), AttrInt("end", 10)}),
            (std::vector<double>{2, 3, 4}));
  EXPECT_TRUE(ShapeOf({2, 3, 4}, {AttrInt("start", 2), AttrInt("end", 1)}).empty());
  // start/end are ignored before opset 15.
  EXPECT_EQ(ShapeOf({2, 3}, {AttrInt("start", 1)}, 13), (std::vector<double>{2, 3}));
  EXPECT_TRUE(ShapeOf({}, {}).empty());
}

TEST(SizeOp, CountsElements) {
  OpCall c{"Size", 13, {}, {Tensor::Zeros(DType::kInt8, {2, 0, 3})}};
  Tensor t = RunOne(c);
  EXPECT_EQ(t.rank(), 0);
  EXPECT_EQ(t.GetInt64(0), 0);
  c.inputs = {Tensor::Zeros(DType::kInt8, {2, 5, 3})};
  EXPECT_EQ(RunOne(c).GetInt64(0), 30);
}

TEST(ShapeOp, MissingInputIsAnError) {
  OpCall c{"Shape", 15, {}, {Tensor()}, {true}};
  EXPECT_FALSE(c.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
