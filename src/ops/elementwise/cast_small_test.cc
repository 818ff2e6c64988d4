#include "ops/elementwise/cast_small.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "vtensor/layout/minifloat.h"

namespace vt::ops {
namespace {

Tensor Cast(const Tensor& in, DType to, bool saturate = true) {
  Tensor out = Tensor::Empty(to, in.shape());
  const Status st = CastSmallInto(in, out, saturate);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

Tensor Codes(DType t, const std::vector<uint8_t>& codes) {
  Tensor x = Tensor::Empty(t, {static_cast<int64_t>(codes.size())});
  for (size_t i = 0; i < codes.size(); ++i) x.mutable_data<uint8_t>()[i] = codes[i];
  return x;
}

TEST(CastSmall, FloatToFloat8EdgeValuesSaturatedOrNot) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = Tensor::FromF32({448, 464, 470, -inf, inf, 0.0f, -0.0f}, {7});
  const Tensor s = Cast(x, DType::kFloat8E4M3FN, true), n = Cast(x, DType::kFloat8E4M3FN, false);
  const std::vector<uint8_t> want_s = {0x7E, 0x7E, 0x7E, 0xFE, 0x7E, 0x00, 0x80};
  const std::vector<uint8_t> want_n = {0x7E, 0x7E, 0x7F, 0xFF, 0x7F, 0x00, 0x80};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(s.data<uint8_t>()[i], want_s[static_cast<size_t>(i)]) << i;
    EXPECT_EQ(n.data<uint8_t>()[i], want_n[static_cast<size_t>(i)]) << i;
  }
  const Tensor fz = Cast(x, DType::kFloat8E5M2FNUZ, true);
  EXPECT_EQ(fz.data<uint8_t>()[4], 0x80);  // +Inf -> NaN for fnuz even when saturating
  EXPECT_EQ(fz.data<uint8_t>()[6], 0x00);  // -0 -> 0
}

TEST(CastSmall, EveryFloat8CodeWidensExactlyAndNarrowsBack) {
  for (DType t : {DType::kFloat8E4M3FN, DType::kFloat8E4M3FNUZ, DType::kFloat8E5M2,
                  DType::kFloat8E5M2FNUZ}) {
    std::vector<uint8_t> all(256);
    for (int c = 0; c < 256; ++c) all[static_cast<size_t>(c)] = static_cast<uint8_t>(c);
    const Tensor f = Cast(Codes(t, all), DType::kFloat32);
    const Tensor back = Cast(f, t, /*saturate=*/false);
    for (int c = 0; c < 256; ++c) {
      const float v = f.data<float>()[c];
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(Float8ToFloat(t, back.data<uint8_t>()[c]))) << DTypeName(t) << c;
      } else {
        EXPECT_EQ(v, Float8ToFloat(t, static_cast<uint8_t>(c))) << DTypeName(t) << c;
        EXPECT_EQ(back.data<uint8_t>()[c], c) << DTypeName(t) << c;
      }
    }
  }
}

TEST(CastSmall, IntegersWrapIntoFourBits) {
  Tensor x = Tensor::Empty(DType::kInt32, {5});
  const int32_t v[5] = {200, -9, 7, 8, -1};  // low nibbles 8, 7, 7, 8, 15
  for (int i = 0; i < 5; ++i) x.mutable_data<int32_t>()[i] = v[i];
  const Tensor i4 = Cast(x, DType::kInt4), u4 = Cast(x, DType::kUInt4);
  const int64_t want_i4[5] = {-8, 7, 7, -8, -1}, want_u4[5] = {8, 7, 7, 8, 15};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(i4.GetInt64(i), want_i4[i]) << i;
    EXPECT_EQ(u4.GetInt64(i), want_u4[i]) << i;
  }
  const Tensor back = Cast(i4, DType::kInt64);
  EXPECT_EQ(back.data<int64_t>()[0], -8);
  const Tensor f = Cast(Tensor::FromF32({-2.7f, 3.9f}, {2}), DType::kInt4);  // truncation
  EXPECT_EQ(f.GetInt64(0), -2);
  EXPECT_EQ(f.GetInt64(1), 3);
}

TEST(CastSmall, Float4E2M1FromFloat16AndBack) {
  const Tensor x = Tensor::FromF32({2.5f, -5.1f, 100.0f, 0.25f}, {4});
  const Tensor h = Cast(Cast(x, DType::kFloat16), DType::kFloat4E2M1);
  const float want[4] = {2.0f, -6.0f, 6.0f, 0.0f};
  const Tensor f = Cast(h, DType::kFloat32);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(f.data<float>()[i], want[i]) << i;
}

}  // namespace
}  // namespace vt::ops
