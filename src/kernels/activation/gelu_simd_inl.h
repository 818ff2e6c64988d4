// The GELU-family rows shared by the AVX-512 and AVX2 files (gelu_ukernel.h), written once over
// a vector-traits type T (kernels/cpu/vec_avx512_inl.h, vec_avx2_inl.h) that each ISA file
// instantiates under its own compile flags.
//
// Vector functions:
//   ExpOfSum(a, c)   e^(a + c) for a + c <= ~0 with `a` carrying the large part exactly: the
//                    Cody-Waite reduction subtracts k ln2 from `a` alone before adding `c`, so
//                    a = -z^2 (exact as z2 + z2 error) loses nothing to the addition.
//   Erfc(z)          z in [0, 9.5]: t * exp(-z^2 + P(t)), t = 1 / (1 + z / 2), P a degree-9
//                    polynomial fitted (weighted least squares in double, docs/contrib-ops.md)
//                    to log(erfc(z) / t) + z^2 within 4.3e-8; about 5e-7 relative in f32.
//   Sigmoid(w)       e = e^-|w|; (w >= 0 ? 1 : e) / (1 + e).
//
// The namespace is anonymous on purpose (see kernels/cpu/vec_avx512_inl.h).
#pragma once

#include <cstddef>

#include "kernels/activation/gelu_ukernel.h"

namespace vt::kernels {
namespace {
namespace gelu_simd {

// ln(FLT_MIN): e^x below it is subnormal and is flushed to 0.
inline constexpr float kExpMinArg = -87.33654475f;
// Beyond it erfc(z) < 1e-40: the kErf tail is 0 (or exactly v) in f32.
inline constexpr float kErfcMaxArg = 9.5f;

inline constexpr float kErfcPoly[10] = {-1.265426993e+00f, 9.982050657e-01f,  3.903157413e-01f,
                                 1.703952812e-02f,  5.286306143e-02f,  -1.772421598e-01f,
                                 -5.792785883e-01f, 1.069087029e+00f,  -6.436987519e-01f,
                                 1.381359696e-01f};

// e^(a + c), a + c <= 88; 0 where a + c < ln(FLT_MIN).
template <class T>
typename T::V ExpOfSum(typename T::V a, typename T::V c) {
  using V = typename T::V;
  const V x = T::Add(a, c);
  const V lo = T::Set1(kExpMinArg);
  const V xc = T::Max(x, lo);
  const V kRound = T::Set1(12582912.0f);  // 1.5 * 2^23: add / subtract rounds to an integer
  const V k = T::Sub(T::Fmadd(xc, T::Set1(1.44269504088896341f), kRound), kRound);
  // Lanes below lo reduce against the clamped k and are zeroed at the end (any value they
  // reach there, inf or NaN included, is discarded).
  V r = T::Fnmadd(k, T::Set1(0.693145751953125f), a);  // exact: k ln2_hi has 15 + 8 bits
  r = T::Add(T::Fnmadd(k, T::Set1(1.42860676533018704e-06f), r), c);
  // expm1(r) = r + r^2 (1/2 + r/6 + ...), |r| <= ln2 / 2: truncation < 6e-9 relative.
  V p = T::Set1(1.0f / 5040);
  p = T::Fmadd(p, r, T::Set1(1.0f / 720));
  p = T::Fmadd(p, r, T::Set1(1.0f / 120));
  p = T::Fmadd(p, r, T::Set1(1.0f / 24));
  p = T::Fmadd(p, r, T::Set1(1.0f / 6));
  p = T::Fmadd(p, r, T::Set1(0.5f));
  const V q = T::Fmadd(T::Mul(r, r), p, r);
  const V scale = T::Pow2(k);
  const V e = T::Fmadd(scale, q, scale);
  return T::BlendSign(T::Sub(x, lo), T::Zero(), e);
}

// erfc(z) for z >= 0 (z past kErfcMaxArg is treated as kErfcMaxArg; NaN too).
template <class T>
typename T::V Erfc(typename T::V z) {
  using V = typename T::V;
  z = T::Min(z, T::Set1(kErfcMaxArg));  // min(NaN, c) = c
  const V t = T::Div(T::Set1(1.0f), T::Fmadd(z, T::Set1(0.5f), T::Set1(1.0f)));
  V p = T::Set1(kErfcPoly[9]);
  for (int i = 8; i >= 0; --i) p = T::Fmadd(p, t, T::Set1(kErfcPoly[i]));
  const V z2 = T::Mul(z, z);
  const V err = T::Fmadd(z, z, T::Sub(T::Zero(), z2));  // z*z - z2, exact
  return T::Mul(t, ExpOfSum<T>(T::Sub(T::Zero(), z2), T::Sub(p, err)));
}

template <class T>
typename T::V Sigmoid(typename T::V w) {
  using V = typename T::V;
  const V e = ExpOfSum<T>(T::Sub(T::Zero(), T::Abs(w)), T::Zero());
  const V one = T::Set1(1.0f);
  return T::Div(T::BlendSign(w, e, one), T::Add(one, e));
}

template <class T>
typename T::V Apply(const GeluRow& r, typename T::V v) {
  using V = typename T::V;
  switch (r.kind) {
    case GeluKind::kErf: {
      const V q = T::Mul(T::Set1(0.5f), Erfc<T>(T::Mul(T::Abs(v), T::Set1(0.70710678118654752f))));
      return T::Mul(v, T::BlendSign(v, q, T::Sub(T::Set1(1.0f), q)));
    }
    case GeluKind::kTanh: {
      // 2u = 2 sqrt(2/pi) (v + 0.044715 v^3)
      const V v2 = T::Mul(v, v);
      const V w = T::Mul(T::Mul(v, T::Set1(1.59576912160573072f)),
                         T::Fmadd(v2, T::Set1(0.044715f), T::Set1(1.0f)));
      return T::Mul(v, Sigmoid<T>(w));
    }
    case GeluKind::kSigmoid:
      return T::Mul(v, Sigmoid<T>(T::Mul(v, T::Set1(r.alpha))));
  }
  return v;
}

template <class T>
void Row(const GeluRow& r) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  size_t i = 0;
  for (; i + L <= r.n; i += L) {
    V v = T::Load(r.x + i);
    if (r.bias != nullptr) v = T::Add(v, T::Load(r.bias + i));
    V y = Apply<T>(r, v);
    if (r.mul != nullptr) y = T::Mul(y, T::Load(r.mul + i));
    T::Store(r.y + i, y);
  }
  if (i < r.n) {
    const size_t len = r.n - i;
    V v = T::LoadN(r.x + i, len);
    if (r.bias != nullptr) v = T::Add(v, T::LoadN(r.bias + i, len));
    V y = Apply<T>(r, v);
    if (r.mul != nullptr) y = T::Mul(y, T::LoadN(r.mul + i, len));
    T::StoreN(r.y + i, y, len);
  }
}

}  // namespace gelu_simd
}  // namespace
}  // namespace vt::kernels
