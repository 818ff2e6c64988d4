#include "vtensor/layout/encoding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace vt {
namespace {

std::vector<float> RandomFloats(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

TEST(EncodingTest, TableOrderMatchesEnumAndNamesRoundTrip) {
  for (int i = 0; i < static_cast<int>(Encoding::kCount); ++i) {
    auto e = static_cast<Encoding>(i);
    const auto& t = GetEncodingTraits(e);
    EXPECT_EQ(t.id, e) << i;
    if (e == Encoding::kUnspecified) continue;
    auto back = EncodingFromName(t.name);
    ASSERT_TRUE(back.has_value()) << t.name;
    EXPECT_EQ(*back, e);
    EXPECT_NE(t.to_float, nullptr);
    EXPECT_NE(t.from_float, nullptr);
  }
  EXPECT_FALSE(EncodingFromName("q5_k").has_value());
  EXPECT_FALSE(EncodingFromName("unspecified").has_value());
}

// The facts other modules read from the table (export layout facts, checker tolerances) agree
// with the codecs: block formats name their scale's encoding, and a float32 source stored in an
// encoding decodes within its decode_error of the largest |value|.
TEST(EncodingTest, ScaleFactsAndDecodeErrorBoundsHold) {
  for (int i = 1; i < static_cast<int>(Encoding::kCount); ++i) {
    const auto e = static_cast<Encoding>(i);
    const auto& t = GetEncodingTraits(e);
    SCOPED_TRACE(t.name);
    if (t.has_scale) {
      EXPECT_TRUE(t.scale_encoding == Encoding::kF16 || t.scale_encoding == Encoding::kF32);
    } else {
      EXPECT_EQ(t.scale_encoding, Encoding::kUnspecified);
      EXPECT_FALSE(t.zero_point);
    }
    EXPECT_GE(t.plane_error, t.decode_error);
    if (!t.lossless) {
      EXPECT_GT(t.decode_error, 0.0f);
    }
    if (t.dtype == DType::kUndefined && !t.has_scale) continue;  // i4/u4: integers only
    if (!t.has_scale && t.decode_error == 0.0f) continue;         // exact for its own values
    const int64_t n = 4 * t.block_elems + 7;
    const std::vector<float> x = RandomFloats(n, 11 + static_cast<uint32_t>(i));
    std::vector<uint8_t> bytes(static_cast<size_t>(EncodedBytes(e, n)));
    std::vector<float> back(static_cast<size_t>(n));
    t.from_float(x.data(), bytes.data(), n);
    t.to_float(bytes.data(), back.data(), n);
    float amax = 0, err = 0;
    for (int64_t j = 0; j < n; ++j) {
      amax = std::max(amax, std::fabs(x[static_cast<size_t>(j)]));
      err = std::max(err, std::fabs(x[static_cast<size_t>(j)] - back[static_cast<size_t>(j)]));
    }
    EXPECT_LE(err, t.decode_error * amax) << "max error " << err << " of max |x| " << amax;
  }
}

TEST(EncodingTest, BlockGeometry) {
  EXPECT_EQ(GetEncodingTraits(Encoding::kQ8_0).block_bytes, 34);
  EXPECT_EQ(GetEncodingTraits(Encoding::kQ4_0).block_bytes, 18);
  EXPECT_EQ(GetEncodingTraits(Encoding::kQ4Zp32).block_bytes, 24);
  EXPECT_EQ(GetEncodingTraits(Encoding::kQ4_K).block_bytes, 144);
  EXPECT_EQ(GetEncodingTraits(Encoding::kQ4_K).block_elems, 256);
  EXPECT_EQ(EncodedBytes(Encoding::kI4, 5), 3);
  EXPECT_EQ(EncodedBytes(Encoding::kQ4_0, 33), 36);
  EXPECT_EQ(EncodedBytes(Encoding::kF16, 7), 14);
  EXPECT_EQ(EncodingFromDType(DType::kFloat16), Encoding::kF16);
  EXPECT_FALSE(EncodingFromDType(DType::kInt64).has_value());
}

TEST(EncodingTest, Int4PacksLowNibbleFirst) {
  // ONNX INT4: element 0 in bits 0-3 of byte 0, element 1 in bits 4-7.
  const float in[3] = {-8, 7, -1};
  uint8_t bytes[2] = {0xAA, 0xAA};
  GetEncodingTraits(Encoding::kI4).from_float(in, bytes, 3);
  EXPECT_EQ(bytes[0], 0x78);
  EXPECT_EQ(bytes[1], 0x0F);  // odd count: high nibble of the last byte is zero
  float out[3];
  GetEncodingTraits(Encoding::kI4).to_float(bytes, out, 3);
  EXPECT_EQ(out[0], -8);
  EXPECT_EQ(out[1], 7);
  EXPECT_EQ(out[2], -1);
  const float u[2] = {15, 16};  // 16 saturates to 15
  GetEncodingTraits(Encoding::kU4).from_float(u, bytes, 2);
  EXPECT_EQ(bytes[0], 0xFF);
}

TEST(EncodingTest, LosslessEncodingsRoundTripBitExact) {
  for (int i = 1; i < static_cast<int>(Encoding::kCount); ++i) {
    const auto& t = GetEncodingTraits(static_cast<Encoding>(i));
    if (!t.lossless) continue;
    // Bytes -> float -> bytes is the identity for every byte pattern except NaN payloads.
    const int64_t n = 257;
    std::vector<uint8_t> bytes(static_cast<size_t>(EncodedBytes(t.id, n)));
    std::mt19937 rng(i);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    if (t.id == Encoding::kF32 || t.id == Encoding::kF16 || t.id == Encoding::kBF16 ||
        IsFloat8DType(t.dtype)) {
      // Replace NaNs (their payload is not preserved by the f16/bf16/f8 conversions).
      std::vector<float> f(n);
      t.to_float(bytes.data(), f.data(), n);
      for (auto& x : f)
        if (std::isnan(x)) x = 1.5f;
      t.from_float(f.data(), bytes.data(), n);
    }
    if (n % 2 && t.block_elems == 2) bytes.back() &= 0x0F;
    std::vector<float> f(n);
    t.to_float(bytes.data(), f.data(), n);
    std::vector<uint8_t> again(bytes.size());
    t.from_float(f.data(), again.data(), n);
    EXPECT_EQ(bytes, again) << t.name;
  }
}

TEST(EncodingTest, ScalarSaturationAndRounding) {
  const float in[5] = {2.5f, 3.5f, -200.0f, 300.0f, NAN};
  int8_t i8[5];
  GetEncodingTraits(Encoding::kI8).from_float(in, i8, 5);
  EXPECT_EQ(i8[0], 2);  // ties to even
  EXPECT_EQ(i8[1], 4);
  EXPECT_EQ(i8[2], -128);
  EXPECT_EQ(i8[3], 127);
  EXPECT_EQ(i8[4], 0);
}

// Block formats are lossy: the error per element is bounded by half a quantization step of
// its block (plus f16 rounding of the scales), which is what `vtensor check --decode` uses.
TEST(EncodingTest, BlockFormatsErrorBounded) {
  struct Case {
    Encoding e;
    float rel_bound;  // max |x - x'| / max|x| over a block
  } cases[] = {{Encoding::kQ8_0, 1.0f / 127}, {Encoding::kQ4_0, 1.0f / 8},
               {Encoding::kQ4Zp32, 2.0f / 15}, {Encoding::kQ4_K, 2.0f / 15}};
  for (const auto& c : cases) {
    const auto& t = GetEncodingTraits(c.e);
    const int64_t n = t.block_elems * 3 + 5;  // a partial last block, too
    auto x = RandomFloats(n, 7);
    std::vector<uint8_t> bytes(static_cast<size_t>(EncodedBytes(c.e, n)));
    t.from_float(x.data(), bytes.data(), n);
    std::vector<float> y(n);
    t.to_float(bytes.data(), y.data(), n);
    for (int64_t b = 0; b * t.block_elems < n; ++b) {
      float amax = 0;
      int64_t end = std::min<int64_t>(n, (b + 1) * t.block_elems);
      for (int64_t i = b * t.block_elems; i < end; ++i) amax = std::max(amax, std::fabs(x[i]));
      for (int64_t i = b * t.block_elems; i < end; ++i)
        EXPECT_LE(std::fabs(x[i] - y[i]), c.rel_bound * amax * 1.01f + 1e-6f)
            << t.name << " element " << i;
    }
  }
}

TEST(EncodingTest, Q4_0DecodesKnownBytes) {
  BlockQ4_0 b{};
  b.d = FloatToHalf(0.5f);
  b.qs[0] = 0x9F;  // element 0 = 15 - 8 = 7, element 16 = 9 - 8 = 1
  for (int j = 1; j < 16; ++j) b.qs[j] = 0x88;
  float out[32];
  GetEncodingTraits(Encoding::kQ4_0).to_float(&b, out, 32);
  EXPECT_EQ(out[0], 3.5f);
  EXPECT_EQ(out[16], 0.5f);
  EXPECT_EQ(out[1], 0.0f);
}

TEST(EncodingTest, Q4_KScalePackingAndDecode) {
  // Pack 6-bit scales/mins by the documented rule and read them back.
  uint8_t sc[8] = {1, 2, 3, 63, 17, 33, 48, 62}, mn[8] = {0, 5, 9, 40, 63, 21, 16, 1};
  BlockQ4_K b{};
  for (int j = 0; j < 4; ++j) {
    b.scales[j] = static_cast<uint8_t>(sc[j] | ((sc[j + 4] >> 4) << 6));
    b.scales[j + 4] = static_cast<uint8_t>(mn[j] | ((mn[j + 4] >> 4) << 6));
    b.scales[j + 8] = static_cast<uint8_t>((sc[j + 4] & 15) | ((mn[j + 4] & 15) << 4));
  }
  for (int j = 0; j < 8; ++j) {
    uint8_t s, m;
    Q4KScaleMin(b.scales, j, &s, &m);
    EXPECT_EQ(s, sc[j]) << j;
    EXPECT_EQ(m, mn[j]) << j;
  }
  b.d = FloatToHalf(0.25f);
  b.dmin = FloatToHalf(0.5f);
  b.qs[0] = 0x3A;   // element 0 (sub-block 0) = 10, element 32 (sub-block 1) = 3
  b.qs[96] = 0xF1;  // element 192 (sub-block 6) = 1, element 224 (sub-block 7) = 15
  float out[256];
  GetEncodingTraits(Encoding::kQ4_K).to_float(&b, out, 256);
  EXPECT_FLOAT_EQ(out[0], 0.25f * 1 * 10 - 0.5f * 0);
  EXPECT_FLOAT_EQ(out[32], 0.25f * 2 * 3 - 0.5f * 5);
  EXPECT_FLOAT_EQ(out[192], 0.25f * 48 * 1 - 0.5f * 16);
  EXPECT_FLOAT_EQ(out[224], 0.25f * 62 * 15 - 0.5f * 1);
}

TEST(EncodingTest, ZeroBlocksStayZero) {
  for (Encoding e : {Encoding::kQ8_0, Encoding::kQ4_0, Encoding::kQ4Zp32, Encoding::kQ4_K}) {
    const auto& t = GetEncodingTraits(e);
    std::vector<float> x(t.block_elems, 0.0f), y(t.block_elems, 1.0f);
    std::vector<uint8_t> bytes(t.block_bytes);
    t.from_float(x.data(), bytes.data(), t.block_elems);
    t.to_float(bytes.data(), y.data(), t.block_elems);
    for (float v : y) EXPECT_EQ(v, 0.0f) << t.name;
  }
}

}  // namespace
}  // namespace vt
