#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(ConstantOfShapeOp, ValueAndDefault) {
  OpCall c{"ConstantOfShape", 9, {AttrTensor("value", I64({1}, {7}))}, {I64({2}, {2, 3})}};
  Tensor y = RunOne(c);
  EXPECT_EQ(y.dtype(), DType::kInt64);
  EXPECT_EQ(Values(y), std::vector<double>(6, 7));
  OpCall d{"ConstantOfShape", 9, {}, {I64({1}, {0})}};
  Tensor z = RunOne(d);
  EXPECT_EQ(z.dtype(), DType::kFloat32);
  EXPECT_EQ(z.shape(), (Shape{0}));
  OpCall scalar{"ConstantOfShape", 9, {}, {I64({0}, {})}};
  EXPECT_EQ(RunOne(scalar).rank(), 0);
  OpCall neg{"ConstantOfShape", 9, {}, {I64({1}, {-1})}};
  EXPECT_FALSE(neg.Run().ok());
}

TEST(RangeOp, IntAndFloat) {
  OpCall i{"Range", 11, {}, {I64({}, {10}), I64({}, {4}), I64({}, {-3})}};
  EXPECT_EQ(Values(RunOne(i)), (std::vector<double>{10, 7}));
  OpCall f{"Range", 11, {}, {F32({}, {1}), F32({}, {2}), F32({}, {0.25})}};
  EXPECT_EQ(Values(RunOne(f)), (std::vector<double>{1, 1.25, 1.5, 1.75}));
  OpCall empty{"Range", 11, {}, {I64({}, {1}), I64({}, {1}), I64({}, {1})}};
  EXPECT_EQ(RunOne(empty).numel(), 0);
  OpCall zero{"Range", 11, {}, {I64({}, {1}), I64({}, {5}), I64({}, {0})}};
  EXPECT_FALSE(zero.Run().ok());
  OpCall mixed{"Range", 11, {}, {I64({}, {1}), F32({}, {5}), I64({}, {1})}};
  EXPECT_FALSE(mixed.Run().ok());
}

TEST(EyeLikeOp, OffsetDiagonalAndDtype) {
  OpCall c{"EyeLike", 9, {AttrInt("k", 1), AttrInt("dtype", 7)}, {Iota({3, 4})}};
  Tensor y = RunOne(c);
  EXPECT_EQ(y.dtype(), DType::kInt64);
  EXPECT_EQ(Values(y), (std::vector<double>{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  OpCall bad{"EyeLike", 9, {}, {Iota({3})}};
  EXPECT_FALSE(bad.Run().ok());
}

TEST(TriluOp, UpperLowerWithK) {
  OpCall up{"Trilu", 14, {}, {Iota({3, 3}), I64({}, {1})}};
  EXPECT_EQ(Values(RunOne(up)), (std::vector<double>{0, 1, 2, 0, 0, 5, 0, 0, 0}));
  OpCall low{"Trilu", 14, {AttrInt("upper", 0)}, {Iota({2, 2, 3})}};
  EXPECT_EQ(Values(RunOne(low)), (std::vector<double>{0, 0, 0, 3, 4, 0, 6, 0, 0, 9, 10, 0}));
  OpCall far{"Trilu", 14, {AttrInt("upper", 0)}, {Iota({2, 2}), I64({}, {-5})}};
  EXPECT_EQ(Values(RunOne(far)), (std::vector<double>{0, 0, 0, 0}));
  OpCall bad{"Trilu", 14, {}, {Iota({3})}};
  EXPECT_FALSE(bad.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
