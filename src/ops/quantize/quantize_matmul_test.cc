// MatMulInteger / QLinearMatMul against int64 reference products, with per-row / per-column
// zero points, batch broadcasting and 1-D operands.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::RunOne;
using testing::Values;

TEST(MatMulInteger, ZeroPointsPerRowAndColumn) {
  Tensor a = MakeTensor(DType::kUInt8, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = MakeTensor(DType::kUInt8, {3, 2}, {7, 8, 9, 10, 11, 12});
  Tensor y = RunOne(OpCall{"MatMulInteger", 10, {}, {a, b}});
  EXPECT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(Values(y), (std::vector<double>{58, 64, 139, 154}));
  Tensor y2 = RunOne(OpCall{"MatMulInteger", 10, {},
                            {a, b, MakeTensor(DType::kUInt8, {2}, {1, 4}),
                             MakeTensor(DType::kUInt8, {2}, {7, 0})}});
  // A - [1; 4] = [[0,1,2],[0,1,2]]; B - [7, 0] = [[0,8],[2,10],[4,12]]
  EXPECT_EQ(Values(y2), (std::vector<double>{10, 34, 10, 34}));
}

TEST(MatMulInteger, BatchBroadcastAndVectors) {
  Tensor a = MakeTensor(DType::kInt8, {2, 1, 2}, {1, -1, 2, 3});
  Tensor b = MakeTensor(DType::kInt8, {2, 2}, {1, 2, 3, 4});
  Tensor y = RunOne(OpCall{"MatMulInteger", 10, {}, {a, b}});
  EXPECT_EQ(y.shape(), (Shape{2, 1, 2}));
  EXPECT_EQ(Values(y), (std::vector<double>{-2, -2, 11, 16}));
  Tensor v = RunOne(OpCall{"MatMulInteger", 10, {}, {MakeTensor(DType::kInt8, {2}, {1, 1}), b}});
  EXPECT_EQ(v.shape(), (Shape{2}));
  EXPECT_EQ(Values(v), (std::vector<double>{4, 6}));
  EXPECT_FALSE((OpCall{"MatMulInteger", 10, {}, {a, MakeTensor(DType::kInt8, {3, 2}, {})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"MatMulInteger", 10, {}, {F32({1, 1}, {1}), F32({1, 1}, {1})}}.Run().ok()));
}

TEST(QLinearMatMul, RequantizesWithRoundingAndSaturation) {
  Tensor a = MakeTensor(DType::kUInt8, {1, 2}, {10, 20});
  Tensor b = MakeTensor(DType::kUInt8, {2, 2}, {1, 2, 3, 4});
  auto u8 = [](double v) { return MakeTensor(DType::kUInt8, {}, {v}); };
  // acc = [70, 100]; * (0.5 * 1 / 4) = [8.75, 12.5] -> [9, 12] (half to even) + 100
  Tensor y = RunOne(OpCall{"QLinearMatMul", 10, {},
                           {a, F32({}, {0.5}), u8(0), b, F32({}, {1}), u8(0), F32({}, {4}), u8(100)}});
  EXPECT_EQ(y.dtype(), DType::kUInt8);
  EXPECT_EQ(Values(y), (std::vector<double>{109, 112}));
  Tensor ys = RunOne(OpCall{"QLinearMatMul", 10, {},
                            {a, F32({}, {10}), u8(0), b, F32({}, {1}), u8(0), F32({}, {1}), u8(0)}});
  EXPECT_EQ(Values(ys), (std::vector<double>{255, 255}));
  EXPECT_FALSE((OpCall{"QLinearMatMul", 10, {},
                       {a, F32({3}, {1, 1, 1}), u8(0), b, F32({}, {1}), u8(0), F32({}, {1}), u8(0)}}.Run().ok()));
}

}  // namespace
}  // namespace vt::ops
