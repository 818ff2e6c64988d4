// Branch-free float32 exp/expm1 and the activations built on them (Sigmoid, Tanh, Elu, ...),
// written so that `#pragma omp simd` loops over them vectorise (libm calls do not). Accuracy:
// a few ulp over the ranges used; exp(x) is flushed to 0 where the true result is subnormal
// (x < ln(FLT_MIN)) and saturates at exp(88) above, which every caller tolerates because it adds
// 1 or multiplies by a finite value afterwards.
//
// Double inputs use the libm functions instead (see unary_math.cc / activation.cc).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace vt::ops::fastmath {

// expm1 and exp of x in one range reduction: x = k ln2 + r, |r| <= ln2/2, then
// expm1(x) = 2^k expm1(r) + (2^k - 1), which stays accurate near 0 (k = 0).
// Valid for x in [ln(FLT_MIN), 88]; callers clamp.
inline void ExpParts(float x, float& scale, float& q) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;        // exact, 15 significant bits
  constexpr float kLn2Lo = 1.42860676533018704e-06f;  // ln2 - kLn2Hi
  constexpr float kRound = 12582912.0f;               // 1.5 * 2^23: add/sub rounds to integer
  const float kf = (x * kLog2e + kRound) - kRound;
  const float r = (x - kf * kLn2Hi) - kf * kLn2Lo;
  // Taylor series of expm1 on |r| <= 0.347; truncation error < 6e-9 relative.
  const float p =
      0.5f +
      r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720 + r * (1.0f / 5040)))));
  q = r + r * r * p;
  scale = std::bit_cast<float>((static_cast<int32_t>(kf) + 127) << 23);
}

// ln(FLT_MIN): below it exp(x) is subnormal and is flushed to 0 (2^k must stay a normal float).
inline constexpr float kExpMinArg = -87.33654475f;
inline constexpr float kExpMaxArg = 88.0f;

inline float Exp(float x) {
  float c = x < kExpMinArg ? kExpMinArg : x;
  c = c > kExpMaxArg ? kExpMaxArg : c;
  float scale, q;
  ExpParts(c, scale, q);
  const float r = scale * q + scale;
  return x < kExpMinArg ? 0.0f : r;
}

inline float Expm1(float x) {
  float c = x < kExpMinArg ? kExpMinArg : x;
  c = c > kExpMaxArg ? kExpMaxArg : c;
  float scale, q;
  ExpParts(c, scale, q);
  return scale * q + (scale - 1.0f);  // -1 (exactly) once 2^k*q underflows
}

// exp / expm1 of x <= 0 (or NaN): the upper clamp is not needed.
inline float ExpNonPositive(float x) {
  const float c = x < kExpMinArg ? kExpMinArg : x;
  float scale, q;
  ExpParts(c, scale, q);
  const float r = scale * q + scale;
  return x < kExpMinArg ? 0.0f : r;
}
inline float Expm1NonPositive(float x) {
  const float c = x < kExpMinArg ? kExpMinArg : x;
  float scale, q;
  ExpParts(c, scale, q);
  return scale * q + (scale - 1.0f);
}

// 1 / (1 + e^-x) evaluated with e = e^-|x| so it never overflows and keeps relative accuracy
// for very negative x (sigmoid(x) = e / (1 + e) there). NaN propagates through e.
inline float Sigmoid(float x) {
  const float e = ExpNonPositive(-std::fabs(x));
  const float num = x >= 0.0f ? 1.0f : e;
  return num / (1.0f + e);
}

// tanh|x| = -u / (2 + u) with u = expm1(-2|x|) in [-1, 0]: no cancellation near 0, and
// saturates to exactly +-1 for large |x|. NaN propagates through u.
inline float Tanh(float x) {
  const float u = Expm1NonPositive(-2.0f * std::fabs(x));
  return std::copysign(-u / (2.0f + u), x);
}

}  // namespace vt::ops::fastmath
