#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

Expected<std::vector<Value>> Reshape(const Shape& in, const std::vector<double>& spec, int allowzero = 0) {
  OpCall c{"Reshape", 14, {AttrInt("allowzero", allowzero)},
           {Iota(in), I64({static_cast<int64_t>(spec.size())}, spec)}};
  return c.Run();
}

TEST(ReshapeOp, ZeroCopiesDimAndMinusOneInfers) {
  auto r = Reshape({2, 3, 4}, {0, -1});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().shape(), (Shape{2, 12}));
  EXPECT_EQ(Values((*r)[0].tensor())[13], 13);
}

TEST(ReshapeOp, AllowZeroKeepsZero) {
  auto r = Reshape({0, 3}, {3, 0}, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].tensor().shape(), (Shape{3, 0}));
}

TEST(ReshapeOp, IsAViewOfContiguousInput) {
  Tensor x = Iota({4, 6});
  OpCall c{"Reshape", 13, {}, {x, I64({2}, {6, 4})}};
  Tensor y = RunOne(c);
  EXPECT_EQ(y.storage(), x.storage());
}

TEST(ReshapeOp, Errors) {
  EXPECT_FALSE(Reshape({2, 3}, {-1, -1}).ok());
  EXPECT_FALSE(Reshape({2, 3}, {4, -1}).ok());
  EXPECT_FALSE(Reshape({2, 3}, {7}).ok());
  EXPECT_FALSE(Reshape({2, 3}, {2, -2}).ok());
  EXPECT_FALSE(Reshape({2, 3}, {0, 0, 0}).ok());  // 0 beyond the input rank
  OpCall bad{"Reshape", 13, {}, {Iota({2}), F32({1}, {2})}};
  EXPECT_FALSE(bad.Run().ok());  // float shape
}

TEST(FlattenOp, Axes) {
  for (int64_t axis : {0, 1, 2, 3, -1, -3}) {
    OpCall c{"Flatten", 13, {AttrInt("axis", axis)}, {Iota({2, 3, 4})}};
    Tensor y = RunOne(c);
    const int64_t a = axis < 0 ? axis + 3 : axis;
    int64_t lead = 1;
    for (int64_t d = 0; d < a; ++d) lead *= Shape{2, 3, 4}[static_cast<size_t>(d)];
    EXPECT_EQ(y.shape(), (Shape{lead, 24 / lead})) << axis;
  }
  OpCall bad{"Flatten", 13, {AttrInt("axis", 4)}, {Iota({2, 3, 4})}};
  EXPECT_FALSE(bad.Run().ok());
}

TEST(SqueezeOp, InputAxesAndDefault) {
  OpCall c{"Squeeze", 13, {}, {Iota({1, 3, 1, 2}), I64({1}, {-2})}};
  EXPECT_EQ(RunOne(c).shape(), (Shape{1, 3, 2}));
  OpCall all{"Squeeze", 13, {}, {Iota({1, 3, 1, 2})}};
  EXPECT_EQ(RunOne(all).shape(), (Shape{3, 2}));
  OpCall attr{"Squeeze", 11, {AttrInts("axes", {0})}, {Iota({1, 3, 1, 2})}};
  EXPECT_EQ(RunOne(attr).shape(), (Shape{3, 1, 2}));
  OpCall bad{"Squeeze", 13, {}, {Iota({1, 3}), I64({1}, {1})}};
  EXPECT_FALSE(bad.Run().ok());
  OpCall oob{"Squeeze", 13, {}, {Iota({1, 3}), I64({1}, {5})}};
  EXPECT_FALSE(oob.Run().ok());
}

TEST(UnsqueezeOp, NegativeAndUnsortedAxes) {
  OpCall c{"Unsqueeze", 13, {}, {Iota({3, 4}), I64({3}, {4, -5, 2})}};
  EXPECT_EQ(RunOne(c).shape(), (Shape{1, 3, 1, 4, 1}));
  OpCall attr{"Unsqueeze", 11, {AttrInts("axes", {0, 3})}, {Iota({3, 4})}};
  EXPECT_EQ(RunOne(attr).shape(), (Shape{1, 3, 4, 1}));
  OpCall dup{"Unsqueeze", 13, {}, {Iota({3}), I64({2}, {0, 0})}};
  EXPECT_FALSE(dup.Run().ok());
  OpCall oob{"Unsqueeze", 13, {}, {Iota({3, 4}), I64({1}, {3})}};
  EXPECT_FALSE(oob.Run().ok());
}

TEST(SqueezeUnsqueeze, KeepStridedViewsWithoutCopy) {
  // A transposed (non-contiguous) input keeps its strides through Unsqueeze/Squeeze.
  Tensor x = Iota({2, 3});
  Tensor xt = x.WithLayout(*x.layout().Transpose({1, 0}));
  OpCall u{"Unsqueeze", 13, {}, {xt, I64({1}, {1})}};
  Tensor y = RunOne(u);
  EXPECT_EQ(y.storage(), x.storage());
  EXPECT_EQ(y.shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(Values(y), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  OpCall s{"Squeeze", 13, {}, {y}};
  Tensor z = RunOne(s);
  EXPECT_EQ(z.storage(), x.storage());
  EXPECT_EQ(Values(z), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

}  // namespace
}  // namespace vt::ops::testing
