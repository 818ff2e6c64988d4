#include "vtensor/layout/minifloat.h"

#include <cmath>
#include <limits>

namespace vt {

namespace {

// Bit layout and special values of one small float format (docs/dtypes.md, "Small floats").
struct Format {
  int bits;       // 8 or 4
  int exp_bits;
  int man_bits;
  int bias;
  uint8_t nan;    // NaN code (sign clear); 0 when the format has none
  bool inf;       // IEEE infinities (e5m2)
  bool uz;        // fnuz: single zero, NaN = negative-zero code
  double max;     // largest finite value
};

constexpr Format kE4M3FN{8, 4, 3, 7, 0x7F, false, false, 448.0};
constexpr Format kE4M3FNUZ{8, 4, 3, 8, 0x80, false, true, 240.0};
constexpr Format kE5M2{8, 5, 2, 15, 0x7F, true, false, 57344.0};
constexpr Format kE5M2FNUZ{8, 5, 2, 16, 0x80, false, true, 57344.0};
constexpr Format kE2M1{4, 2, 1, 1, 0, false, false, 6.0};

const Format& FormatOf(DType t) {
  switch (t) {
    case DType::kFloat8E4M3FNUZ: return kE4M3FNUZ;
    case DType::kFloat8E5M2: return kE5M2;
    case DType::kFloat8E5M2FNUZ: return kE5M2FNUZ;
    case DType::kFloat4E2M1: return kE2M1;
    default: return kE4M3FN;
  }
}

float Decode(const Format& f, uint8_t code) {
  const uint8_t sign_bit = static_cast<uint8_t>(1u << (f.bits - 1));
  code &= static_cast<uint8_t>((1u << f.bits) - 1);
  const int e = (code >> f.man_bits) & ((1 << f.exp_bits) - 1);
  const int m = code & ((1 << f.man_bits) - 1);
  const bool neg = (code & sign_bit) != 0;
  const int emax = (1 << f.exp_bits) - 1;
  if (f.uz && code == sign_bit) return std::numeric_limits<float>::quiet_NaN();
  if (f.inf && e == emax) {
    if (m != 0) return std::numeric_limits<float>::quiet_NaN();
    return neg ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  }
  if (!f.inf && !f.uz && f.nan != 0 && e == emax && m == (1 << f.man_bits) - 1)
    return std::numeric_limits<float>::quiet_NaN();
  double v = e == 0 ? std::ldexp(static_cast<double>(m), 1 - f.bias - f.man_bits)
                    : std::ldexp(static_cast<double>(m + (1 << f.man_bits)), e - f.bias - f.man_bits);
  return static_cast<float>(neg ? -v : v);
}

// Code of |a| (finite, a <= max after rounding), sign excluded.
uint8_t EncodeMagnitude(const Format& f, double a) {
  if (a == 0.0) return 0;
  int k;
  std::frexp(a, &k);  // a = g * 2^k, g in [0.5, 1)
  const int emin = 1 - f.bias;
  const int e = k - 1 < emin ? emin : k - 1;
  const int e_field = k - 1 < emin ? 0 : k - 1 + f.bias;
  // Significand in units of the last mantissa bit; a carry out of it moves to the next binade,
  // which the bit layout absorbs (mantissa overflow increments the exponent field).
  const auto q = static_cast<uint32_t>(std::ldexp(a, f.man_bits - e));
  const uint32_t implicit = e_field == 0 ? 0 : (1u << f.man_bits);
  return static_cast<uint8_t>((static_cast<uint32_t>(e_field) << f.man_bits) + (q - implicit));
}

uint8_t Encode(const Format& f, double x, bool saturate) {
  const uint8_t sign_bit = static_cast<uint8_t>(1u << (f.bits - 1));
  const bool neg = std::signbit(x);
  const uint8_t sign = neg ? sign_bit : 0;
  const uint8_t max_code = EncodeMagnitude(f, f.max);
  if (std::isnan(x)) {
    if (f.bits == 4) return max_code;
    return f.uz ? f.nan : static_cast<uint8_t>(f.nan | sign);
  }
  double a = std::fabs(x);
  bool overflow = std::isinf(a);
  if (!overflow) {
    // Round to nearest even at the format's precision: the quantum is 2^(e - man_bits) with e
    // the unbiased exponent of a, clamped below at the subnormal exponent.
    int k;
    std::frexp(a, &k);
    const int e = std::max(k - 1, 1 - f.bias);
    a = std::ldexp(std::nearbyint(std::ldexp(a, f.man_bits - e)), e - f.man_bits);
    overflow = a > f.max;
  }
  if (overflow) {
    if (f.bits == 4) return static_cast<uint8_t>(max_code | sign);
    if (f.uz && std::isinf(x)) return f.nan;
    if (saturate) return static_cast<uint8_t>(max_code | sign);
    if (f.inf) return static_cast<uint8_t>(EncodeMagnitude(f, std::ldexp(1.0, (1 << f.exp_bits) - 1 - f.bias)) | sign);
    return f.uz ? f.nan : static_cast<uint8_t>(f.nan | sign);
  }
  if (a == 0.0 && f.uz) return 0;
  return static_cast<uint8_t>(EncodeMagnitude(f, a) | sign);
}

}  // namespace

float Float8ToFloat(DType t, uint8_t code) { return Decode(FormatOf(t), code); }
uint8_t FloatToFloat8(DType t, double x, bool saturate) { return Encode(FormatOf(t), x, saturate); }
float Float4E2M1ToFloat(uint8_t code) { return Decode(kE2M1, code); }
uint8_t FloatToFloat4E2M1(double x) { return Encode(kE2M1, x, true); }
float MiniFloatToFloat(DType t, uint8_t code) { return Decode(FormatOf(t), code); }
uint8_t FloatToMiniFloat(DType t, double x, bool saturate) {
  return Encode(FormatOf(t), x, saturate);
}

}  // namespace vt
