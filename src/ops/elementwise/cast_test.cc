#include "ops/elementwise/cast.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::OpCall;

TEST(Cast, FloatToHalfRoundsToNearestEven) {
  EXPECT_EQ(ConvertElem<Float16>(1.0f + 1.0f / 2048).bits, 0x3C00);          // tie -> even
  EXPECT_EQ(ConvertElem<Float16>(1.0f + 3.0f / 2048).bits, 0x3C02);          // tie -> even (up)
  EXPECT_EQ(ConvertElem<Float16>(1.0f + 1.0f / 2048 + 1e-6f).bits, 0x3C01);  // above tie
  EXPECT_EQ(ConvertElem<Float16>(65520.0f).bits, 0x7C00);                    // overflow -> inf
  EXPECT_EQ(ConvertElem<Float16>(65519.0f).bits, 0x7BFF);
  EXPECT_EQ(ConvertElem<Float16>(-0.0f).bits, 0x8000);
  EXPECT_EQ(ConvertElem<Float16>(std::ldexp(1.0f, -25)).bits, 0x0000);  // tie with 0 -> even
  EXPECT_EQ(ConvertElem<Float16>(std::ldexp(3.0f, -25)).bits, 0x0002);  // subnormal tie -> even
  const uint16_t nan = ConvertElem<Float16>(std::numeric_limits<float>::quiet_NaN()).bits;
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
}

TEST(Cast, DoubleToHalfRoundsOnce) {
  // Via float this would round twice: float(d) = 1 + 2^-11 exactly (a tie), then to even 1.0.
  const double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(static_cast<float>(d), 1.0f + 1.0f / 2048);
  EXPECT_EQ(ConvertElem<Float16>(d).bits, 0x3C01);
  EXPECT_EQ(ConvertElem<Float16>(1.0 + std::ldexp(1.0, -11)).bits, 0x3C00);
  EXPECT_EQ(ConvertElem<Float16>(1e300).bits, 0x7C00);
  EXPECT_EQ(ConvertElem<Float16>(-1e-300).bits, 0x8000);
  EXPECT_EQ(ConvertElem<BFloat16>(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -50)).bits, 0x3F81);
}

TEST(Cast, FloatToBFloat16RoundsToNearestEven) {
  EXPECT_EQ(ConvertElem<BFloat16>(1.0f + 1.0f / 256).bits, 0x3F80);  // tie -> even
  EXPECT_EQ(ConvertElem<BFloat16>(1.0f + 3.0f / 256).bits, 0x3F82);  // tie -> even (up)
  EXPECT_EQ(ConvertElem<BFloat16>(0.48033666610717773f).bits, 0x3EF6);
  EXPECT_EQ(ConvertElem<BFloat16>(std::numeric_limits<float>::infinity()).bits, 0x7F80);
  const uint16_t nan = ConvertElem<BFloat16>(std::numeric_limits<float>::quiet_NaN()).bits;
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(nan)));
  EXPECT_EQ(ConvertElem<float>(BFloat16{0x3EF6}), 0.48046875f);
}

TEST(Cast, FloatToIntIsDefinedEverywhere) {
  EXPECT_EQ(ConvertElem<int32_t>(-2.9f), -2);
  EXPECT_EQ(ConvertElem<int32_t>(std::numeric_limits<float>::quiet_NaN()), 0);
  EXPECT_EQ(ConvertElem<int64_t>(1e30), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ConvertElem<int64_t>(-std::numeric_limits<double>::infinity()),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ConvertElem<uint64_t>(1e30), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(ConvertElem<uint64_t>(1.8e19), 18000000000000000000ull);
  EXPECT_EQ(ConvertElem<uint8_t>(300.0f), 44);  // wraps like a C cast through int
  EXPECT_EQ(ConvertElem<uint8_t>(-1.0f), 255);
  EXPECT_EQ(ConvertElem<bool>(std::numeric_limits<float>::quiet_NaN()), true);
  EXPECT_EQ(ConvertElem<bool>(-0.0), false);
  EXPECT_EQ(ConvertElem<float>(true), 1.0f);
  EXPECT_EQ(ConvertElem<int8_t>(int64_t{200}), -56);
}

TEST(Cast, FormatsLikeNumpyStr) {
  EXPECT_EQ(FormatFloat(0.296140193939209f), "0.2961402");
  EXPECT_EQ(FormatFloat(0.03918779268860817f), "0.039187793");
  EXPECT_EQ(FormatFloat(1.0f), "1.0");
  EXPECT_EQ(FormatFloat(-100.0f), "-100.0");
  EXPECT_EQ(FormatFloat(314.15926f), "314.15927");
  EXPECT_EQ(FormatFloat(123456789.0f), "123456790.0");
  EXPECT_EQ(FormatFloat(1e20f), "1e+20");
  EXPECT_EQ(FormatFloat(1.5e-5f), "1.5e-05");
  EXPECT_EQ(FormatFloat(0.0001f), "1e-04");  // 0.0001f < 1e-4: numpy prints it so too
  EXPECT_EQ(FormatDouble(0.0001), "0.0001");
  EXPECT_EQ(FormatFloat(0.0f), "0.0");
  EXPECT_EQ(FormatFloat(-0.0f), "-0.0");
  EXPECT_EQ(FormatFloat(std::numeric_limits<float>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatFloat(-std::numeric_limits<float>::infinity()), "-INF");
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(1e16), "1e+16");
  EXPECT_EQ(FormatDouble(1.2345e-300), "1.2345e-300");
  EXPECT_EQ(FormatHalf(FloatToHalf(0.1f), false), "0.1");
  EXPECT_EQ(FormatHalf(FloatToHalf(65504.0f), false), "65500.0");
  EXPECT_EQ(FormatHalf(FloatToBFloat16(3.0f), true), "3.0");
}

TEST(Cast, ParsesOnnxLiterals) {
  EXPECT_EQ(*ParseFloat("0.47892547"), 0.47892547f);
  EXPECT_EQ(*ParseFloat("1e-5"), 1e-5f);
  EXPECT_EQ(*ParseFloat("1E8"), 1e8f);
  EXPECT_EQ(*ParseFloat(" +3.5 "), 3.5f);
  EXPECT_EQ(*ParseFloat("INF"), std::numeric_limits<float>::infinity());
  EXPECT_EQ(*ParseFloat("+INF"), std::numeric_limits<float>::infinity());
  EXPECT_EQ(*ParseFloat("-inf"), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(*ParseFloat("NaN")));
  EXPECT_EQ(*ParseDouble("1e999"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(*ParseDouble("-1e-999"), 0.0);
  EXPECT_EQ(*ParseInt64("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(*ParseInt64("100.5"), 100);
  EXPECT_EQ(*ParseUInt64("18446744073709551615"), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(*ParseDouble("True"), 1.0);
  EXPECT_FALSE(ParseFloat("Hello World!").ok());
  EXPECT_FALSE(ParseFloat("").ok());
  EXPECT_FALSE(ParseFloat("1.5x").ok());
  EXPECT_FALSE(ParseFloat("+").ok());
  EXPECT_FALSE(ParseInt64("--1").ok());
}

Tensor Strings(std::vector<std::string> v) {
  Tensor t = Tensor::Empty(DType::kString, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<std::string>()[i] = v[i];
  return t;
}

TEST(CastKernel, StringRoundTripAndErrors) {
  Tensor f =
      testing::RunOne({"Cast", 13, {testing::AttrInt("to", 1)}, {Strings({"1.5", "-INF", "2e3"})}});
  EXPECT_EQ(testing::Values(f),
            (std::vector<double>{1.5, -std::numeric_limits<double>::infinity(), 2000}));
  Tensor s = testing::RunOne({"Cast", 13, {testing::AttrInt("to", 8)}, {f}});
  ASSERT_EQ(s.dtype(), DType::kString);
  EXPECT_EQ(s.data<std::string>()[0], "1.5");
  EXPECT_EQ(s.data<std::string>()[1], "-INF");
  EXPECT_EQ(s.data<std::string>()[2], "2000.0");
  Tensor i = testing::RunOne({"Cast", 13, {testing::AttrInt("to", 7)}, {Strings({"-42", "7"})}});
  EXPECT_EQ(i.data<int64_t>()[0], -42);
  OpCall bad{"Cast", 13, {testing::AttrInt("to", 1)}, {Strings({"oops"})}};
  auto r = bad.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("oops"), std::string::npos);
  OpCall complex{"Cast", 13, {testing::AttrInt("to", 14)}, {testing::F32({1}, {1})}};
  EXPECT_FALSE(complex.Run().ok());
  OpCall missing{"Cast", 13, {}, {testing::F32({1}, {1})}};
  EXPECT_FALSE(missing.Run().ok());
}

TEST(CastKernel, Opset1StringTypeAndStridedInput) {
  Tensor base = testing::F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor t = base.WithLayout(*base.layout().Transpose({1, 0}));
  Tensor y = testing::RunOne({"Cast", 1, {testing::AttrString("to", "INT32")}, {t}});
  ASSERT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(testing::Values(y), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  Tensor like = Tensor::Empty(DType::kFloat16, {1});
  Tensor h = testing::RunOne({"CastLike", 15, {}, {base, like}});
  ASSERT_EQ(h.dtype(), DType::kFloat16);
  EXPECT_EQ(h.data<uint16_t>()[5], FloatToHalf(6.0f));
}

}  // namespace
}  // namespace vt::ops
