// QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear: rounding, saturation, per-axis and
// blocked parameters, dtypes and bad parameter shapes.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::RunOne;
using testing::Values;

TEST(QuantizeLinear, RoundsHalfToEvenAndSaturates) {
  Tensor x = F32({7}, {0, 1, 3, 5, -3, 1000, -1000});
  Tensor y = RunOne(OpCall{"QuantizeLinear", 13, {},
                           {x, F32({}, {2}), MakeTensor(DType::kUInt8, {}, {128})}});
  EXPECT_EQ(y.dtype(), DType::kUInt8);
  // 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -1.5 -> -2
  EXPECT_EQ(Values(y), (std::vector<double>{128, 128, 130, 130, 126, 255, 0}));
  Tensor yi = RunOne(OpCall{"QuantizeLinear", 13, {},
                            {x, F32({}, {2}), MakeTensor(DType::kInt8, {}, {-1})}});
  EXPECT_EQ(yi.dtype(), DType::kInt8);
  EXPECT_EQ(Values(yi), (std::vector<double>{-1, -1, 1, 1, -3, 127, -128}));
  // No zero point: uint8 with zero point 0.
  Tensor yd = RunOne(OpCall{"QuantizeLinear", 10, {}, {F32({2}, {-4, 7}), F32({}, {1})}});
  EXPECT_EQ(Values(yd), (std::vector<double>{0, 7}));
}

TEST(QuantizeLinear, PerAxisAndBlocked) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y = RunOne(OpCall{"QuantizeLinear", 13, {AttrInt("axis", 0)},
                           {x, F32({2}, {1, 2}), MakeTensor(DType::kUInt8, {2}, {0, 10})}});
  EXPECT_EQ(Values(y), (std::vector<double>{1, 2, 3, 12, 12, 13}));
  // Blocks of 2 along axis 1: scale [2, 2].
  Tensor yb = RunOne(OpCall{"QuantizeLinear", 21, {AttrInt("axis", 1), AttrInt("block_size", 2)},
                            {x, F32({2, 2}, {1, 3, 2, 6}), MakeTensor(DType::kUInt8, {2, 2}, {0, 0, 0, 0})}});
  EXPECT_EQ(Values(yb), (std::vector<double>{1, 2, 1, 2, 2, 1}));
  EXPECT_FALSE((OpCall{"QuantizeLinear", 13, {AttrInt("axis", 1)},
                       {x, F32({2}, {1, 2}), MakeTensor(DType::kUInt8, {2}, {0, 0})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"QuantizeLinear", 13, {AttrInt("axis", 0)},
                       {x, F32({2}, {1, 2}), MakeTensor(DType::kUInt8, {3}, {0, 0, 0})}}.Run().ok()));
}

TEST(DequantizeLinear, PerTensorPerAxisAndInt32) {
  Tensor x = MakeTensor(DType::kUInt8, {2, 2}, {0, 3, 128, 255});
  Tensor y = RunOne(OpCall{"DequantizeLinear", 13, {},
                           {x, F32({}, {0.5}), MakeTensor(DType::kUInt8, {}, {128})}});
  EXPECT_EQ(y.dtype(), DType::kFloat32);
  EXPECT_EQ(Values(y), (std::vector<double>{-64, -62.5, 0, 63.5}));
  Tensor ya = RunOne(OpCall{"DequantizeLinear", 13, {AttrInt("axis", 1)},
                            {x, F32({2}, {1, 2}), MakeTensor(DType::kUInt8, {2}, {0, 3})}});
  EXPECT_EQ(Values(ya), (std::vector<double>{0, 0, 128, 504}));
  Tensor xi = MakeTensor(DType::kInt32, {2}, {-7, 9});
  EXPECT_EQ(Values(RunOne(OpCall{"DequantizeLinear", 10, {}, {xi, F32({}, {2})}})),
            (std::vector<double>{-14, 18}));
  EXPECT_FALSE((OpCall{"DequantizeLinear", 13, {}, {F32({1}, {1}), F32({}, {2})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"DequantizeLinear", 13, {},
                       {x, F32({}, {1}), MakeTensor(DType::kInt8, {}, {0})}}.Run().ok()));
}

TEST(DynamicQuantizeLinear, RangeIncludesZero) {
  OpCall c{"DynamicQuantizeLinear", 11, {}, {F32({4}, {0, 2, -1, 0.5})}};
  c.num_outputs = 3;
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const double scale = Values((*r)[1].tensor())[0];
  EXPECT_NEAR(scale, 3.0 / 255, 1e-7);
  EXPECT_EQ(Values((*r)[2].tensor()), std::vector<double>{85});
  EXPECT_EQ(Values((*r)[0].tensor()), (std::vector<double>{85, 255, 0, 127}));
  OpCall z{"DynamicQuantizeLinear", 11, {}, {F32({2}, {0, 0})}};
  z.num_outputs = 3;
  auto rz = z.Run();
  ASSERT_TRUE(rz.ok());
  EXPECT_EQ(Values((*rz)[0].tensor()), (std::vector<double>{0, 0}));
}

}  // namespace
}  // namespace vt::ops
