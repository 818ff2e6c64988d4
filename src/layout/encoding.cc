// The encoding traits table: the single place a physical element/block format is added.
#include "vtensor/layout/encoding.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "vtensor/layout/minifloat.h"

namespace vt {

namespace {

// ---- per-block conversions (one full block; the table wrappers handle partial tails) ----

void F32ToFloat(const void* s, float* d, int64_t n) { std::memcpy(d, s, n * sizeof(float)); }
void F32FromFloat(const float* s, void* d, int64_t n) { std::memcpy(d, s, n * sizeof(float)); }

void F16ToFloat(const void* s, float* d, int64_t n) {
  const auto* p = static_cast<const uint8_t*>(s);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    d[i] = HalfToFloat(h);
  }
}
void F16FromFloat(const float* s, void* d, int64_t n) {
  auto* p = static_cast<uint8_t*>(d);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h = FloatToHalf(s[i]);
    std::memcpy(p + 2 * i, &h, 2);
  }
}
void BF16ToFloat(const void* s, float* d, int64_t n) {
  const auto* p = static_cast<const uint8_t*>(s);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    d[i] = BFloat16ToFloat(h);
  }
}
void BF16FromFloat(const float* s, void* d, int64_t n) {
  auto* p = static_cast<uint8_t*>(d);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h = FloatToBFloat16(s[i]);
    std::memcpy(p + 2 * i, &h, 2);
  }
}

// Round half to even, saturate to [lo, hi], NaN -> 0 (ONNX QuantizeLinear saturation).
int32_t RoundSat(float x, int32_t lo, int32_t hi) {
  if (std::isnan(x)) return 0;
  float r = std::nearbyint(x);  // default FP environment: ties to even
  if (r < static_cast<float>(lo)) return lo;
  if (r > static_cast<float>(hi)) return hi;
  return static_cast<int32_t>(r);
}

void I8ToFloat(const void* s, float* d, int64_t n) {
  const auto* p = static_cast<const int8_t*>(s);
  for (int64_t i = 0; i < n; ++i) d[i] = p[i];
}
void I8FromFloat(const float* s, void* d, int64_t n) {
  auto* p = static_cast<int8_t*>(d);
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int8_t>(RoundSat(s[i], -128, 127));
}
void U8ToFloat(const void* s, float* d, int64_t n) {
  const auto* p = static_cast<const uint8_t*>(s);
  for (int64_t i = 0; i < n; ++i) d[i] = p[i];
}
void U8FromFloat(const float* s, void* d, int64_t n) {
  auto* p = static_cast<uint8_t*>(d);
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(RoundSat(s[i], 0, 255));
}

// Sub-byte: element 2k in the low nibble of byte k. Odd n leaves the last high nibble 0.
void I4ToFloat(const void* s, float* d, int64_t n) {
  const auto* p = static_cast<const uint8_t*>(s);
  for (int64_t i = 0; i < n; ++i) {
    int v = (p[i / 2] >> ((i & 1) * 4)) & 15;
    d[i] = static_cast<float>(v >= 8 ? v - 16 : v);
  }
}
void I4FromFloat(const float* s, void* d, int64_t n) {
  auto* p = static_cast<uint8_t*>(d);
  std::memset(p, 0, static_cast<size_t>((n + 1) / 2));
  for (int64_t i = 0; i < n; ++i)
    p[i / 2] |= static_cast<uint8_t>((RoundSat(s[i], -8, 7) & 15) << ((i & 1) * 4));
}
void U4ToFloat(const void* s, float* d, int64_t n) {
  const auto* p = static_cast<const uint8_t*>(s);
  for (int64_t i = 0; i < n; ++i) d[i] = static_cast<float>((p[i / 2] >> ((i & 1) * 4)) & 15);
}
void U4FromFloat(const float* s, void* d, int64_t n) {
  auto* p = static_cast<uint8_t*>(d);
  std::memset(p, 0, static_cast<size_t>((n + 1) / 2));
  for (int64_t i = 0; i < n; ++i)
    p[i / 2] |= static_cast<uint8_t>(RoundSat(s[i], 0, 15) << ((i & 1) * 4));
}

// Small floats (layout/minifloat.h): from_float rounds to nearest even and saturates finite
// values beyond the range; +-Inf stays +-Inf where the type has it (e5m2) and is NaN otherwise,
// so every code a float8 type holds round-trips.
template <DType T>
void F8ToFloat(const void* s, float* d, int64_t n) {
  const auto* p = static_cast<const uint8_t*>(s);
  for (int64_t i = 0; i < n; ++i) d[i] = Float8ToFloat(T, p[i]);
}
template <DType T>
void F8FromFloat(const float* s, void* d, int64_t n) {
  auto* p = static_cast<uint8_t*>(d);
  for (int64_t i = 0; i < n; ++i) p[i] = FloatToFloat8(T, s[i], /*saturate=*/!std::isinf(s[i]));
}
void F4ToFloat(const void* s, float* d, int64_t n) {
  const auto* p = static_cast<const uint8_t*>(s);
  for (int64_t i = 0; i < n; ++i) d[i] = Float4E2M1ToFloat(static_cast<uint8_t>(p[i / 2] >> ((i & 1) * 4)));
}
void F4FromFloat(const float* s, void* d, int64_t n) {
  auto* p = static_cast<uint8_t*>(d);
  std::memset(p, 0, static_cast<size_t>((n + 1) / 2));
  for (int64_t i = 0; i < n; ++i)
    p[i / 2] |= static_cast<uint8_t>(FloatToFloat4E2M1(s[i]) << ((i & 1) * 4));
}

// ---- block formats: one full block per call ----

void Q8_0Decode(const void* s, float* d) {
  BlockQ8_0 b;
  std::memcpy(&b, s, sizeof b);
  const float scale = HalfToFloat(b.d);
  for (int i = 0; i < kQ8_0Elems; ++i) d[i] = scale * b.qs[i];
}
void Q8_0Encode(const float* s, void* d) {
  float amax = 0;
  for (int i = 0; i < kQ8_0Elems; ++i) amax = std::max(amax, std::fabs(s[i]));
  BlockQ8_0 b{};
  b.d = FloatToHalf(amax / 127.0f);
  const float scale = HalfToFloat(b.d);  // quantize against the stored (rounded) scale
  const float inv = scale != 0 ? 1.0f / scale : 0.0f;
  for (int i = 0; i < kQ8_0Elems; ++i) b.qs[i] = static_cast<int8_t>(RoundSat(s[i] * inv, -127, 127));
  std::memcpy(d, &b, sizeof b);
}

void Q4_0Decode(const void* s, float* d) {
  BlockQ4_0 b;
  std::memcpy(&b, s, sizeof b);
  const float scale = HalfToFloat(b.d);
  for (int j = 0; j < kQ4_0Elems / 2; ++j) {
    d[j] = scale * static_cast<float>((b.qs[j] & 15) - 8);
    d[j + kQ4_0Elems / 2] = scale * static_cast<float>((b.qs[j] >> 4) - 8);
  }
}
void Q4_0Encode(const float* s, void* d) {
  // The signed value of largest magnitude maps to -8, so the full range [-8, 7] is used.
  float mx = 0;
  for (int i = 0; i < kQ4_0Elems; ++i)
    if (std::fabs(s[i]) > std::fabs(mx)) mx = s[i];
  BlockQ4_0 b{};
  b.d = FloatToHalf(mx / -8.0f);
  const float scale = HalfToFloat(b.d);
  const float inv = scale != 0 ? 1.0f / scale : 0.0f;
  for (int j = 0; j < kQ4_0Elems / 2; ++j) {
    int lo = RoundSat(s[j] * inv + 8.0f, 0, 15);
    int hi = RoundSat(s[j + kQ4_0Elems / 2] * inv + 8.0f, 0, 15);
    b.qs[j] = static_cast<uint8_t>(lo | (hi << 4));
  }
  std::memcpy(d, &b, sizeof b);
}

void Q4Zp32Decode(const void* s, float* d) {
  BlockQ4Zp32 b;
  std::memcpy(&b, s, sizeof b);
  const int zp = b.zero_point & 15;
  for (int i = 0; i < kQ4Zp32Elems; ++i) {
    int q = (b.qs[i / 2] >> ((i & 1) * 4)) & 15;
    d[i] = b.scale * static_cast<float>(q - zp);
  }
}
void Q4Zp32Encode(const float* s, void* d) {
  // Asymmetric, range always includes 0 so that 0 is exact (ONNX dynamic quantization rule).
  float lo = 0, hi = 0;
  for (int i = 0; i < kQ4Zp32Elems; ++i) {
    lo = std::min(lo, s[i]);
    hi = std::max(hi, s[i]);
  }
  BlockQ4Zp32 b{};
  b.scale = (hi - lo) / 15.0f;
  if (b.scale != 0) {
    b.zero_point = static_cast<uint8_t>(RoundSat(-lo / b.scale, 0, 15));
    const float inv = 1.0f / b.scale;
    for (int i = 0; i < kQ4Zp32Elems; ++i) {
      int q = RoundSat(s[i] * inv + b.zero_point, 0, 15);
      b.qs[i / 2] |= static_cast<uint8_t>(q << ((i & 1) * 4));
    }
  }
  std::memcpy(d, &b, sizeof b);
}

void Q4_KDecode(const void* s, float* d) {
  BlockQ4_K b;
  std::memcpy(&b, s, sizeof b);
  const float dd = HalfToFloat(b.d), dm = HalfToFloat(b.dmin);
  for (int g = 0; g < 4; ++g) {
    uint8_t sc0, m0, sc1, m1;
    Q4KScaleMin(b.scales, 2 * g, &sc0, &m0);
    Q4KScaleMin(b.scales, 2 * g + 1, &sc1, &m1);
    for (int l = 0; l < 32; ++l) {
      const uint8_t q = b.qs[32 * g + l];
      d[64 * g + l] = dd * sc0 * static_cast<float>(q & 15) - dm * m0;
      d[64 * g + 32 + l] = dd * sc1 * static_cast<float>(q >> 4) - dm * m1;
    }
  }
}
void Q4_KEncode(const float* s, void* d) {
  // Per sub-block: x ~= scale * q - min with q in [0, 15] and min >= 0; the 8 scales and
  // mins are then quantized to 6 bits against the f16 super-scales d and dmin.
  float scale[8], mins[8];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 8; ++j) {
    float lo = s[32 * j], hi = s[32 * j];
    for (int l = 1; l < 32; ++l) {
      lo = std::min(lo, s[32 * j + l]);
      hi = std::max(hi, s[32 * j + l]);
    }
    lo = std::min(lo, 0.0f);
    scale[j] = (hi - lo) / 15.0f;
    mins[j] = -lo;
    max_scale = std::max(max_scale, scale[j]);
    max_min = std::max(max_min, mins[j]);
  }
  BlockQ4_K b{};
  b.d = FloatToHalf(max_scale / 63.0f);
  b.dmin = FloatToHalf(max_min / 63.0f);
  const float dd = HalfToFloat(b.d), dm = HalfToFloat(b.dmin);
  uint8_t sc[8], mn[8];
  for (int j = 0; j < 8; ++j) {
    sc[j] = static_cast<uint8_t>(dd > 0 ? RoundSat(scale[j] / dd, 0, 63) : 0);
    mn[j] = static_cast<uint8_t>(dm > 0 ? RoundSat(mins[j] / dm, 0, 63) : 0);
  }
  for (int j = 0; j < 4; ++j) {
    b.scales[j] = static_cast<uint8_t>((sc[j] & 63) | ((sc[j + 4] >> 4) << 6));
    b.scales[j + 4] = static_cast<uint8_t>((mn[j] & 63) | ((mn[j + 4] >> 4) << 6));
    b.scales[j + 8] = static_cast<uint8_t>((sc[j + 4] & 15) | ((mn[j + 4] & 15) << 4));
  }
  for (int j = 0; j < 8; ++j) {
    const float step = dd * sc[j], off = dm * mn[j];
    const float inv = step != 0 ? 1.0f / step : 0.0f;
    for (int l = 0; l < 32; ++l) {
      const int q = RoundSat((s[32 * j + l] + off) * inv, 0, 15);
      const int g = j / 2;
      b.qs[32 * g + l] |= static_cast<uint8_t>(q << ((j & 1) * 4));
    }
  }
  std::memcpy(d, &b, sizeof b);
}

// Adapts a one-block codec to any element count: the last partial block is decoded through
// a scratch buffer and encoded zero-padded.
template <int kElems, int kBytes, void (*Decode)(const void*, float*)>
void BlockToFloat(const void* src, float* dst, int64_t n) {
  const auto* p = static_cast<const uint8_t*>(src);
  int64_t full = n / kElems;
  for (int64_t b = 0; b < full; ++b) Decode(p + b * kBytes, dst + b * kElems);
  if (int64_t rest = n - full * kElems) {
    float tmp[kElems];
    Decode(p + full * kBytes, tmp);
    std::memcpy(dst + full * kElems, tmp, static_cast<size_t>(rest) * sizeof(float));
  }
}
template <int kElems, int kBytes, void (*Encode)(const float*, void*)>
void BlockFromFloat(const float* src, void* dst, int64_t n) {
  auto* p = static_cast<uint8_t*>(dst);
  int64_t full = n / kElems;
  for (int64_t b = 0; b < full; ++b) Encode(src + b * kElems, p + b * kBytes);
  if (int64_t rest = n - full * kElems) {
    float tmp[kElems] = {};
    std::memcpy(tmp, src + full * kElems, static_cast<size_t>(rest) * sizeof(float));
    Encode(tmp, p + full * kBytes);
  }
}

constexpr int kNumEncodings = static_cast<int>(Encoding::kCount);

// The traits table. Order must follow the Encoding enum (checked below at compile time: a
// missing row leaves a zero row, whose id is out of order).
constexpr float kHalfStep4 = 2.0f / 15, kHalfStep8 = 1.0f / 127;
constexpr std::array<EncodingTraits, kNumEncodings> kTraits = {{
    // id, name, block elems, block bytes, scale, lossless, dtype, to_float, from_float,
    // scale encoding, zero point, decode error, plane error
    {Encoding::kUnspecified, "unspecified", 1, 0, false, false, DType::kUndefined, nullptr,
     nullptr, Encoding::kUnspecified, false, 0, 0},
    {Encoding::kF32, "f32", 1, 4, false, true, DType::kFloat32, F32ToFloat, F32FromFloat,
     Encoding::kUnspecified, false, 0, 0},
    // A float32 source rounded to f16 / bf16.
    {Encoding::kF16, "f16", 1, 2, false, true, DType::kFloat16, F16ToFloat, F16FromFloat,
     Encoding::kUnspecified, false, 1.0f / 1024, 1.0f / 1024},
    {Encoding::kBF16, "bf16", 1, 2, false, true, DType::kBFloat16, BF16ToFloat, BF16FromFloat,
     Encoding::kUnspecified, false, 1.0f / 128, 1.0f / 128},
    {Encoding::kI8, "i8", 1, 1, false, true, DType::kInt8, I8ToFloat, I8FromFloat,
     Encoding::kUnspecified, false, 0, kHalfStep8},
    {Encoding::kU8, "u8", 1, 1, false, true, DType::kUInt8, U8ToFloat, U8FromFloat,
     Encoding::kUnspecified, false, 0, kHalfStep8},
    {Encoding::kI4, "i4", 2, 1, false, true, DType::kUndefined, I4ToFloat, I4FromFloat,
     Encoding::kUnspecified, false, 0, kHalfStep4},
    {Encoding::kU4, "u4", 2, 1, false, true, DType::kUndefined, U4ToFloat, U4FromFloat,
     Encoding::kUnspecified, false, 0, kHalfStep4},
    {Encoding::kQ8_0, "q8_0", kQ8_0Elems, sizeof(BlockQ8_0), true, false, DType::kUndefined,
     BlockToFloat<kQ8_0Elems, sizeof(BlockQ8_0), Q8_0Decode>,
     BlockFromFloat<kQ8_0Elems, sizeof(BlockQ8_0), Q8_0Encode>, Encoding::kF16, false,
     1.0f / 127, 1.0f / 127},
    {Encoding::kQ4_0, "q4_0", kQ4_0Elems, sizeof(BlockQ4_0), true, false, DType::kUndefined,
     BlockToFloat<kQ4_0Elems, sizeof(BlockQ4_0), Q4_0Decode>,
     BlockFromFloat<kQ4_0Elems, sizeof(BlockQ4_0), Q4_0Encode>, Encoding::kF16, false,
     1.0f / 8, 1.0f / 8},
    {Encoding::kQ4Zp32, "q4zp32", kQ4Zp32Elems, sizeof(BlockQ4Zp32), true, false,
     DType::kUndefined, BlockToFloat<kQ4Zp32Elems, sizeof(BlockQ4Zp32), Q4Zp32Decode>,
     BlockFromFloat<kQ4Zp32Elems, sizeof(BlockQ4Zp32), Q4Zp32Encode>, Encoding::kF32, true,
     kHalfStep4, kHalfStep4},
    // d/dmin super-scales in f16, 6-bit sub-block scales and mins.
    {Encoding::kQ4_K, "q4_k", kQ4_KElems, sizeof(BlockQ4_K), true, false, DType::kUndefined,
     BlockToFloat<kQ4_KElems, sizeof(BlockQ4_K), Q4_KDecode>,
     BlockFromFloat<kQ4_KElems, sizeof(BlockQ4_K), Q4_KEncode>, Encoding::kF16, true,
     kHalfStep4, kHalfStep4},
    // float8 codes: relative rounding error half a mantissa step (3 bits e4m3, 2 bits e5m2);
    // values beyond the type's range saturate, so the error bound assumes they fit.
    {Encoding::kF8E4M3FN, "f8e4m3fn", 1, 1, false, true, DType::kFloat8E4M3FN,
     F8ToFloat<DType::kFloat8E4M3FN>, F8FromFloat<DType::kFloat8E4M3FN>, Encoding::kUnspecified,
     false, 1.0f / 16, 1.0f / 16},
    {Encoding::kF8E4M3FNUZ, "f8e4m3fnuz", 1, 1, false, true, DType::kFloat8E4M3FNUZ,
     F8ToFloat<DType::kFloat8E4M3FNUZ>, F8FromFloat<DType::kFloat8E4M3FNUZ>,
     Encoding::kUnspecified, false, 1.0f / 16, 1.0f / 16},
    {Encoding::kF8E5M2, "f8e5m2", 1, 1, false, true, DType::kFloat8E5M2,
     F8ToFloat<DType::kFloat8E5M2>, F8FromFloat<DType::kFloat8E5M2>, Encoding::kUnspecified,
     false, 1.0f / 8, 1.0f / 8},
    {Encoding::kF8E5M2FNUZ, "f8e5m2fnuz", 1, 1, false, true, DType::kFloat8E5M2FNUZ,
     F8ToFloat<DType::kFloat8E5M2FNUZ>, F8FromFloat<DType::kFloat8E5M2FNUZ>,
     Encoding::kUnspecified, false, 1.0f / 8, 1.0f / 8},
    // float4e2m1, packed like i4: +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
    {Encoding::kF4E2M1, "f4e2m1", 2, 1, false, true, DType::kUndefined, F4ToFloat, F4FromFloat,
     Encoding::kUnspecified, false, 1.0f / 4, 1.0f / 4},
}};

constexpr bool RowsFollowTheEnum() {
  for (int i = 0; i < kNumEncodings; ++i)
    if (static_cast<int>(kTraits[static_cast<size_t>(i)].id) != i) return false;
  return true;
}
static_assert(RowsFollowTheEnum(), "kTraits needs one row per Encoding, in enum order");

}  // namespace

void Q4KScaleMin(const uint8_t* scales, int j, uint8_t* sc, uint8_t* m) {
  if (j < 4) {
    *sc = scales[j] & 63;
    *m = scales[j + 4] & 63;
  } else {
    *sc = static_cast<uint8_t>((scales[j + 4] & 15) | ((scales[j - 4] >> 6) << 4));
    *m = static_cast<uint8_t>((scales[j + 4] >> 4) | ((scales[j] >> 6) << 4));
  }
}

const EncodingTraits& GetEncodingTraits(Encoding e) {
  auto i = static_cast<size_t>(e);
  return kTraits[i < kTraits.size() ? i : 0];
}

std::optional<Encoding> EncodingFromName(std::string_view name) {
  for (const auto& t : kTraits)
    if (t.id != Encoding::kUnspecified && name == t.name) return t.id;
  return std::nullopt;
}

std::optional<Encoding> EncodingFromDType(DType dt) {
  for (const auto& t : kTraits)
    if (t.id != Encoding::kUnspecified && t.block_elems == 1 && t.dtype == dt) return t.id;
  return std::nullopt;
}

int64_t EncodedBytes(Encoding e, int64_t n) {
  const auto& t = GetEncodingTraits(e);
  return (n + t.block_elems - 1) / t.block_elems * t.block_bytes;
}

}  // namespace vt
