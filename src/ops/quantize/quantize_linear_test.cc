// QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear: rounding, saturation, per-axis and
// blocked parameters, dtypes and bad parameter shapes.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"
#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::RunOne;
using testing::Values;

// Tensor of dtype `dt` from float32 values (int16, bfloat16: types MakeTensor does not write).
Tensor Typed(DType dt, const Shape& shape, const std::vector<double>& v) {
  return CastTensor(F32(shape, v), dt);
}

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

TEST(QuantizeLinear, Opset23DividesInThePrecisionType) {
  // 1000.6 is 1000.5 in float16: the float16 quotient is a tie (-> 1000), the float32 one 1001.
  Tensor x = F32({2}, {1000.6, -3});
  Tensor zp = Typed(DType::kInt16, {}, {0});
  EXPECT_EQ(Values(RunOne(OpCall{"QuantizeLinear", 23, {}, {x, F32({}, {1}), zp}})),
            (std::vector<double>{1001, -3}));
  EXPECT_EQ(Values(RunOne(OpCall{"QuantizeLinear", 23, {AttrInt("precision", 10)},
                                 {x, F32({}, {1}), zp}})),
            (std::vector<double>{1000, -3}));
  // A float16 y_scale sets the precision unless `precision` says otherwise.
  Tensor s16 = MakeTensor(DType::kFloat16, {}, {1});
  EXPECT_EQ(Values(RunOne(OpCall{"QuantizeLinear", 23, {}, {x, s16, zp}})),
            (std::vector<double>{1000, -3}));
  EXPECT_EQ(Values(RunOne(OpCall{"QuantizeLinear", 23, {AttrInt("precision", 1)}, {x, s16, zp}})),
            (std::vector<double>{1001, -3}));
  // bfloat16: 1000.6 -> 1000 (8 significant bits), 1000 / 3 = 333.33 -> 334 in bfloat16.
  EXPECT_EQ(Values(RunOne(OpCall{"QuantizeLinear", 23, {AttrInt("precision", 16)},
                                 {F32({2}, {1000.6, 1000}), F32({}, {3}), zp}})),
            (std::vector<double>{334, 334}));
  // float16 x and y_scale: 673.5 / 1.1748 is 573.287 in float32, 573.5 (-> 574) in float16;
  // opset 21 divides in float32.
  Tensor x16 = MakeTensor(DType::kFloat16, {1}, {673.5});
  Tensor s16b = MakeTensor(DType::kFloat16, {}, {1.175});
  EXPECT_EQ(Values(RunOne(OpCall{"QuantizeLinear", 23, {}, {x16, s16b, zp}})),
            std::vector<double>{574});
  EXPECT_EQ(Values(RunOne(OpCall{"QuantizeLinear", 21, {}, {x16, s16b, zp}})),
            std::vector<double>{573});
}

TEST(QuantizeLinear, Opset23Int32InputsAndOutputDType) {
  // int32 x and y_scale: the real quotient rounds half to even (7/2 -> 4, 5/2 -> 2).
  Tensor xi = MakeTensor(DType::kInt32, {4}, {7, 5, -5, 100001});
  Tensor y = RunOne(OpCall{"QuantizeLinear", 23, {AttrInt("output_dtype", 5)},
                           {xi, MakeTensor(DType::kInt32, {}, {2})}});
  EXPECT_EQ(y.dtype(), DType::kInt16);
  EXPECT_EQ(Values(y), (std::vector<double>{4, 2, -2, 32767}));
  // output_dtype must agree with y_zero_point's type; precision must be a float type.
  EXPECT_FALSE((OpCall{"QuantizeLinear", 23, {AttrInt("output_dtype", 3)},
                       {F32({1}, {1}), F32({}, {1}), MakeTensor(DType::kUInt8, {}, {0})}}
                    .Run().ok()));
  EXPECT_TRUE((OpCall{"QuantizeLinear", 23, {AttrInt("output_dtype", 2)},
                      {F32({1}, {1}), F32({}, {1}), MakeTensor(DType::kUInt8, {}, {0})}}
                   .Run().ok()));
  EXPECT_FALSE((OpCall{"QuantizeLinear", 23, {AttrInt("precision", 3)},
                       {F32({1}, {1}), F32({}, {1})}}.Run().ok()));
}

TEST(DequantizeLinear, Opset23OutputDTypeSetsTypeAndPrecision) {
  Tensor x = MakeTensor(DType::kInt8, {3}, {-128, 5, 127});
  Tensor y = RunOne(OpCall{"DequantizeLinear", 23, {AttrInt("output_dtype", 10)},
                           {x, F32({}, {0.5}), MakeTensor(DType::kInt8, {}, {1})}});
  EXPECT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(Values(y), (std::vector<double>{-64.5, 2, 63}));
  // float16 multiply: 2049 -> 2048 and 1 + 2^-10 are the factors, 2050 the product. Multiplying
  // in float32 and rounding after would give 2051.0009.. -> 2052.
  Tensor xs = Typed(DType::kInt16, {2}, {2049, 3});
  Tensor s = F32({}, {1.0009765625});
  EXPECT_EQ(Values(RunOne(OpCall{"DequantizeLinear", 23, {AttrInt("output_dtype", 10)}, {xs, s}})),
            (std::vector<double>{2050, 3.00390625}));  // 3.0029296875 is a tie
  // bfloat16 output from a float32 scale; float32 output from a float16 scale.
  Tensor yb = RunOne(OpCall{"DequantizeLinear", 23, {AttrInt("output_dtype", 16)},
                            {x, F32({}, {0.1})}});
  EXPECT_EQ(yb.dtype(), DType::kBFloat16);
  EXPECT_EQ(Values(yb)[2], 12.6875);  // 127 * bf16(0.1) = 127 * 0.10009765625, rounded
  Tensor yf = RunOne(OpCall{"DequantizeLinear", 23, {AttrInt("output_dtype", 1)},
                            {x, MakeTensor(DType::kFloat16, {}, {0.1})}});
  EXPECT_EQ(yf.dtype(), DType::kFloat32);
  EXPECT_FLOAT_EQ(static_cast<float>(Values(yf)[1]), 5 * 0.0999755859375f);
  EXPECT_FALSE((OpCall{"DequantizeLinear", 23, {AttrInt("output_dtype", 3)},
                       {x, F32({}, {1})}}.Run().ok()));
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
