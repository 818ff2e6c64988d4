#include "vtensor/layout/minifloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace vt {
namespace {

// Reference value of a float8 code straight from the value expressions of ONNX's float8 table:
// (-1)^S 2^(E - bias) (1 + M / 2^m) for E != 0, (-1)^S 2^(1 - bias) M / 2^m for E = 0, with
// the special codes of each type listed separately.
double RefFloat8(DType t, int code) {
  const bool e5 = t == DType::kFloat8E5M2 || t == DType::kFloat8E5M2FNUZ;
  const bool uz = t == DType::kFloat8E4M3FNUZ || t == DType::kFloat8E5M2FNUZ;
  const int mbits = e5 ? 2 : 3;
  const int bias = t == DType::kFloat8E4M3FN ? 7 : t == DType::kFloat8E4M3FNUZ ? 8
                   : t == DType::kFloat8E5M2 ? 15 : 16;
  const int s = code >> 7, e = (code & 0x7F) >> mbits, m = code & ((1 << mbits) - 1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (uz && code == 0x80) return nan;
  if (t == DType::kFloat8E4M3FN && (code & 0x7F) == 0x7F) return nan;
  if (t == DType::kFloat8E5M2 && e == 31) return m ? nan : (s ? -INFINITY : INFINITY);
  double mag = 0;
  for (int i = 0; i < mbits; ++i)
    if (m >> i & 1) mag += std::pow(2.0, i - mbits);
  const double v = e == 0 ? std::pow(2.0, 1 - bias) * mag : std::pow(2.0, e - bias) * (1 + mag);
  return s ? -v : v;
}

constexpr DType kF8[] = {DType::kFloat8E4M3FN, DType::kFloat8E4M3FNUZ, DType::kFloat8E5M2,
                         DType::kFloat8E5M2FNUZ};

TEST(MiniFloat, EveryFloat8CodeDecodesAsTheSpecTableAndRoundTrips) {
  for (DType t : kF8) {
    for (int c = 0; c < 256; ++c) {
      const double ref = RefFloat8(t, c);
      const float got = Float8ToFloat(t, static_cast<uint8_t>(c));
      if (std::isnan(ref)) {
        EXPECT_TRUE(std::isnan(got)) << DTypeName(t) << " code " << c;
        continue;
      }
      EXPECT_EQ(static_cast<double>(got), ref) << DTypeName(t) << " code " << c;
      EXPECT_EQ(std::signbit(got), std::signbit(ref)) << DTypeName(t) << " code " << c;
      if (std::isinf(ref)) continue;  // +-Inf saturates; covered below
      EXPECT_EQ(FloatToFloat8(t, ref, true), c) << DTypeName(t) << " code " << c;
      EXPECT_EQ(FloatToFloat8(t, ref, false), c) << DTypeName(t) << " code " << c;
    }
  }
}

TEST(MiniFloat, Float8RoundsToNearestEven) {
  // e4m3fn around 1: step 0.125. 1.0625 is a tie -> 1 (even mantissa), 1.1875 tie -> 1.25.
  EXPECT_EQ(Float8ToFloat(DType::kFloat8E4M3FN, FloatToFloat8(DType::kFloat8E4M3FN, 1.0625, true)),
            1.0f);
  EXPECT_EQ(Float8ToFloat(DType::kFloat8E4M3FN, FloatToFloat8(DType::kFloat8E4M3FN, 1.1875, true)),
            1.25f);
  EXPECT_EQ(Float8ToFloat(DType::kFloat8E4M3FN, FloatToFloat8(DType::kFloat8E4M3FN, 1.07, true)),
            1.125f);
  // Smallest subnormal of e4m3fn 2^-9: half of it is a tie to 0, a bit more rounds up.
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, std::ldexp(1.0, -10), true), 0x00);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, std::ldexp(1.5, -10), true), 0x01);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, -std::ldexp(1.0, -10), true), 0x80);  // -0
  // The largest subnormal rounds up into the first normal binade.
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, std::ldexp(15.9, -10), true), 0x08);
}

TEST(MiniFloat, Float8SaturateAndOverflowFollowTheCastTables) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Max normal kept; a tie above max rounds back to max (464 for e4m3fn), beyond it overflows.
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, 448, false), 0x7E);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, 464, false), 0x7E);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, 470, true), 0x7E);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, -470, true), 0xFE);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, 470, false), 0x7F);    // NaN
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, -470, false), 0xFF);   // -NaN
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, inf, true), 0x7E);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, -inf, true), 0xFE);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, inf, false), 0x7F);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E4M3FN, nan, true), 0x7F);
  // e5m2: Inf exists; 61440 is the tie between max 57344 and 2^16 -> overflow.
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E5M2, 61440, true), 0x7B);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E5M2, 61440, false), 0x7C);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E5M2, 61439, false), 0x7B);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E5M2, -inf, true), 0xFB);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E5M2, -inf, false), 0xFC);
  EXPECT_EQ(FloatToFloat8(DType::kFloat8E5M2, -1e9, false), 0xFC);
  // fnuz: Inf -> NaN even when saturating; overflow saturates or gives NaN; no -0.
  for (DType t : {DType::kFloat8E4M3FNUZ, DType::kFloat8E5M2FNUZ}) {
    EXPECT_EQ(FloatToFloat8(t, inf, true), 0x80) << DTypeName(t);
    EXPECT_EQ(FloatToFloat8(t, -inf, true), 0x80) << DTypeName(t);
    EXPECT_EQ(FloatToFloat8(t, 1e9, true), 0x7F) << DTypeName(t);
    EXPECT_EQ(FloatToFloat8(t, -1e9, true), 0xFF) << DTypeName(t);
    EXPECT_EQ(FloatToFloat8(t, 1e9, false), 0x80) << DTypeName(t);
    EXPECT_EQ(FloatToFloat8(t, -nan, false), 0x80) << DTypeName(t);
    EXPECT_EQ(FloatToFloat8(t, -0.0, true), 0x00) << DTypeName(t);
    EXPECT_EQ(FloatToFloat8(t, -1e-30, false), 0x00) << DTypeName(t);
  }
  EXPECT_EQ(Float8ToFloat(DType::kFloat8E4M3FNUZ, 0x7F), 240.0f);
  EXPECT_EQ(Float8ToFloat(DType::kFloat8E5M2FNUZ, 0x7F), 57344.0f);
  EXPECT_EQ(Float8ToFloat(DType::kFloat8E4M3FNUZ, 0x01), std::ldexp(1.0f, -10));
  EXPECT_EQ(Float8ToFloat(DType::kFloat8E5M2FNUZ, 0x01), std::ldexp(1.0f, -17));
}

TEST(MiniFloat, Float4E2M1ValuesRoundingAndSaturation) {
  const float kValues[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (int c = 0; c < 16; ++c) {
    const float v = (c & 8) ? -kValues[c & 7] : kValues[c & 7];
    EXPECT_EQ(Float4E2M1ToFloat(static_cast<uint8_t>(c)), v) << c;
    EXPECT_EQ(std::signbit(Float4E2M1ToFloat(static_cast<uint8_t>(c))), (c & 8) != 0) << c;
    EXPECT_EQ(FloatToFloat4E2M1(v), c) << c;
  }
  EXPECT_EQ(FloatToFloat4E2M1(2.5), 0x4);   // tie 2 / 3 -> 2 (even)
  EXPECT_EQ(FloatToFloat4E2M1(3.5), 0x6);   // tie 3 / 4 -> 4
  EXPECT_EQ(FloatToFloat4E2M1(5.0), 0x6);   // tie 4 / 6 -> 4 (even code 110)
  EXPECT_EQ(FloatToFloat4E2M1(5.1), 0x7);
  EXPECT_EQ(FloatToFloat4E2M1(0.25), 0x0);  // tie 0 / 0.5 -> 0
  EXPECT_EQ(FloatToFloat4E2M1(100), 0x7);
  EXPECT_EQ(FloatToFloat4E2M1(-100), 0xF);
  EXPECT_EQ(FloatToFloat4E2M1(-INFINITY), 0xF);
  EXPECT_EQ(FloatToFloat4E2M1(std::numeric_limits<double>::quiet_NaN()), 0x7);
}

}  // namespace
}  // namespace vt
