#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(TransposeOp, IsZeroCopyView) {
  Tensor x = Iota({2, 3, 4});
  OpCall c{"Transpose", 13, {AttrInts("perm", {2, 0, 1})}, {x}};
  Tensor y = RunOne(c);
  EXPECT_EQ(y.storage(), x.storage());
  EXPECT_EQ(y.shape(), (Shape{4, 2, 3}));
  // y[k, i, j] == x[i, j, k]
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        EXPECT_EQ(y.GetDouble((k * 2 + i) * 3 + j), (i * 3 + j) * 4 + k);
}

TEST(TransposeOp, DefaultReverses) {
  OpCall c{"Transpose", 13, {}, {Iota({2, 3})}};
  Tensor y = RunOne(c);
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_EQ(Values(y), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(TransposeOp, BadPermIsAnError) {
  OpCall dup{"Transpose", 13, {AttrInts("perm", {0, 0})}, {Iota({2, 3})}};
  EXPECT_FALSE(dup.Run().ok());
  OpCall len{"Transpose", 13, {AttrInts("perm", {0})}, {Iota({2, 3})}};
  EXPECT_FALSE(len.Run().ok());
  OpCall oob{"Transpose", 13, {AttrInts("perm", {0, 5})}, {Iota({2, 3})}};
  EXPECT_FALSE(oob.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
