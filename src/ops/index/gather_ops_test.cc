#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(GatherOp, AxesAndNegativeIndices) {
  // data [3, 4]: value = 4r + c
  OpCall c0{"Gather", 13, {AttrInt("axis", 0)}, {Iota({3, 4}), I64({2}, {-1, 0})}};
  EXPECT_EQ(Values(RunOne(c0)), (std::vector<double>{8, 9, 10, 11, 0, 1, 2, 3}));
  OpCall c1{"Gather", 13, {AttrInt("axis", -1)}, {Iota({3, 4}), I64({2, 1}, {3, 1})}};
  Tensor y = RunOne(c1);
  EXPECT_EQ(y.shape(), (Shape{3, 2, 1}));
  EXPECT_EQ(Values(y), (std::vector<double>{3, 1, 7, 5, 11, 9}));
  OpCall scalar{"Gather", 13, {}, {Iota({3, 2}), I64({}, {1})}};
  EXPECT_EQ(RunOne(scalar).shape(), (Shape{2}));
  OpCall i32{"Gather", 13, {}, {Iota({3}), MakeTensor(DType::kInt32, {2}, {2, -3})}};
  EXPECT_EQ(Values(RunOne(i32)), (std::vector<double>{2, 0}));
}

TEST(GatherOp, OutOfRangeIsAnError) {
  OpCall c{"Gather", 13, {}, {Iota({3}), I64({1}, {3})}};
  EXPECT_FALSE(c.Run().ok());
  OpCall neg{"Gather", 13, {}, {Iota({3}), I64({1}, {-4})}};
  EXPECT_FALSE(neg.Run().ok());
  OpCall fidx{"Gather", 13, {}, {Iota({3}), F32({1}, {0})}};
  EXPECT_FALSE(fidx.Run().ok());
}

TEST(GatherElementsOp, Basic) {
  OpCall c{"GatherElements", 13, {AttrInt("axis", 1)},
           {F32({2, 2}, {1, 2, 3, 4}), I64({2, 2}, {0, 0, 1, -2})}};
  EXPECT_EQ(Values(RunOne(c)), (std::vector<double>{1, 1, 4, 3}));
  OpCall smaller{"GatherElements", 13, {AttrInt("axis", 0)}, {Iota({3, 3}), I64({1, 2}, {2, 1})}};
  EXPECT_EQ(Values(RunOne(smaller)), (std::vector<double>{6, 4}));
}

TEST(GatherElementsOp, Errors) {
  OpCall oob{"GatherElements", 13, {}, {Iota({2, 2}), I64({1, 1}, {2})}};
  EXPECT_FALSE(oob.Run().ok());
  OpCall big{"GatherElements", 13, {AttrInt("axis", 0)}, {Iota({2, 2}), I64({1, 3}, {0, 0, 0})}};
  EXPECT_FALSE(big.Run().ok());
  OpCall rank{"GatherElements", 13, {}, {Iota({2, 2}), I64({2}, {0, 0})}};
  EXPECT_FALSE(rank.Run().ok());
}

TEST(GatherNDOp, BatchDims) {
  OpCall c{"GatherND", 13, {}, {Iota({2, 2}), I64({2, 2}, {0, 0, 1, 1})}};
  EXPECT_EQ(Values(RunOne(c)), (std::vector<double>{0, 3}));
  OpCall slices{"GatherND", 13, {}, {Iota({2, 2}), I64({2, 1}, {1, 0})}};
  EXPECT_EQ(Values(RunOne(slices)), (std::vector<double>{2, 3, 0, 1}));
  // batch_dims=1: data [2,2,2], indices [2,1] -> out [2,2]
  OpCall b{"GatherND", 13, {AttrInt("batch_dims", 1)}, {Iota({2, 2, 2}), I64({2, 1}, {1, 0})}};
  Tensor y = RunOne(b);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values(y), (std::vector<double>{2, 3, 4, 5}));
}

TEST(GatherNDOp, Errors) {
  OpCall oob{"GatherND", 13, {}, {Iota({2, 2}), I64({1, 2}, {0, 2})}};
  EXPECT_FALSE(oob.Run().ok());
  OpCall deep{"GatherND", 13, {}, {Iota({2, 2}), I64({1, 3}, {0, 0, 0})}};
  EXPECT_FALSE(deep.Run().ok());
  OpCall batch{"GatherND", 13, {AttrInt("batch_dims", 1)}, {Iota({2, 2}), I64({3, 1}, {0, 0, 0})}};
  EXPECT_FALSE(batch.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
