// The row-wise algorithms (rowwise_ukernel.h) written once over a vector-traits type T that
// each ISA file defines in its own anonymous namespace and compiles with its own flags.
//
// T provides: V, kLanes, Zero, Set1, Add, Sub, Mul, Div, Fmadd (a * b + c), Fnmadd
// (c - a * b), Max, Min, Abs, LessThanZero(x) (mask), Select(mask, a, b), FirstN(n) (mask of
// lanes < n), Load, LoadN (zeros past n), Store, StoreN, ReduceAdd, Round (to nearest
// integer), Pow2i (2^n for integral n in [-126, 127]) and BelowMask(x, bound) (lanes with
// x < bound).
//
// The namespace is anonymous on purpose: an inline function shared by two ISA files could be
// emitted with AVX-512 instructions and then picked by the linker for the AVX2 row too.
#pragma once

#include <cmath>
#include <cstddef>

#include "kernels/rowwise/rowwise_ukernel.h"

namespace vt::kernels {
namespace {
namespace rowwise_simd {

// exp(x): x = k ln2 + r (|r| <= ln2 / 2, ln2 split in two so r is exact), exp(r) from its
// degree-7 Taylor polynomial (truncation below 1e-8 relative), times 2^k. 0 below
// ln(FLT_MIN) (results that would be subnormal), finite at the top (x clamped to 88).
template <class T>
typename T::V Exp(typename T::V x) {
  using V = typename T::V;
  const auto zero = T::BelowMask(x, -87.33654475f);
  x = T::Min(x, T::Set1(88.0f));
  x = T::Max(x, T::Set1(-87.33654475f));
  const V k = T::Round(T::Mul(x, T::Set1(1.44269504088896341f)));
  V r = T::Fnmadd(k, T::Set1(0.693145751953125f), x);
  r = T::Fnmadd(k, T::Set1(1.42860676533018704e-06f), r);
  V p = T::Set1(1.0f / 5040);
  p = T::Fmadd(p, r, T::Set1(1.0f / 720));
  p = T::Fmadd(p, r, T::Set1(1.0f / 120));
  p = T::Fmadd(p, r, T::Set1(1.0f / 24));
  p = T::Fmadd(p, r, T::Set1(1.0f / 6));
  p = T::Fmadd(p, r, T::Set1(0.5f));
  p = T::Fmadd(p, T::Mul(r, r), r);  // expm1(r)
  const V e = T::Mul(T::Add(p, T::Set1(1.0f)), T::Pow2i(k));
  return T::Select(zero, T::Zero(), e);
}

// 1 + erf(z) for z = x / sqrt(2): erfc(|z|) = t exp(-z^2 + P(t)), t = 1 / (1 + |z| / 2), a
// Chebyshev fit with relative error below 1.2e-7; 1 + erf(z) = 2 - erfc(|z|) for z >= 0 and
// erfc(|z|) below, so the negative tail keeps its relative accuracy.
template <class T>
typename T::V OnePlusErf(typename T::V x) {
  using V = typename T::V;
  const V z = T::Mul(T::Abs(x), T::Set1(0.70710678118654752f));
  const V t = T::Div(T::Set1(1.0f), T::Fmadd(z, T::Set1(0.5f), T::Set1(1.0f)));
  V p = T::Set1(0.17087277f);
  p = T::Fmadd(p, t, T::Set1(-0.82215223f));
  p = T::Fmadd(p, t, T::Set1(1.48851587f));
  p = T::Fmadd(p, t, T::Set1(-1.13520398f));
  p = T::Fmadd(p, t, T::Set1(0.27886807f));
  p = T::Fmadd(p, t, T::Set1(-0.18628806f));
  p = T::Fmadd(p, t, T::Set1(0.09678418f));
  p = T::Fmadd(p, t, T::Set1(0.37409196f));
  p = T::Fmadd(p, t, T::Set1(1.00002368f));
  p = T::Fmadd(p, t, T::Set1(-1.26551223f));
  const V erfc = T::Mul(t, Exp<T>(T::Fnmadd(z, z, p)));
  return T::Select(T::LessThanZero(x), erfc, T::Sub(T::Set1(2.0f), erfc));
}

// 1 / (1 + exp(-a)) from e = exp(-|a|): 1 / (1 + e) for a >= 0, e / (1 + e) below, so that a
// far negative argument gives an exact 0 instead of x / (a huge finite value).
template <class T>
typename T::V Sigmoid(typename T::V a) {
  const typename T::V e = Exp<T>(T::Sub(T::Zero(), T::Abs(a)));
  return T::Div(T::Select(T::LessThanZero(a), e, T::Set1(1.0f)), T::Add(T::Set1(1.0f), e));
}

template <class T>
typename T::V Activate(RowAct act, typename T::V x) {
  using V = typename T::V;
  switch (act) {
    case RowAct::kNone: return x;
    case RowAct::kRelu: return T::Max(x, T::Zero());
    case RowAct::kGeluErf: return T::Mul(T::Mul(x, T::Set1(0.5f)), OnePlusErf<T>(x));
    case RowAct::kGeluTanh: {
      // 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3).
      const V x2 = T::Mul(x, x);
      const V u = T::Mul(T::Mul(x, T::Set1(0.79788456080286536f)),
                         T::Fmadd(x2, T::Set1(0.044715f), T::Set1(1.0f)));
      return T::Mul(x, Sigmoid<T>(T::Add(u, u)));
    }
    case RowAct::kSilu: return T::Mul(x, Sigmoid<T>(x));
  }
  return x;
}

template <class T>
void NormRows(const NormRowsCall& c) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  const size_t n = c.n, full = n / L * L, tail = n - full;
  const float inv_n = 1.0f / static_cast<float>(n);
  for (size_t r = 0; r < c.rows; ++r) {
    const float* x = c.x + static_cast<ptrdiff_t>(r) * c.x_stride;
    const float* s = c.skip ? c.skip + static_cast<ptrdiff_t>(r) * c.skip_stride : nullptr;
    float* y = c.y + static_cast<ptrdiff_t>(r) * c.y_stride;
    float* v = c.sum ? c.sum + static_cast<ptrdiff_t>(r) * c.sum_stride : y;
    // Pass 1: v = x + skip + bias into `v` (the sum output, else y itself) and its sum.
    V acc0 = T::Zero(), acc1 = T::Zero();
    auto load_v = [&](size_t i, size_t cnt) {
      V t = cnt == L ? T::Load(x + i) : T::LoadN(x + i, cnt);
      if (s) t = T::Add(t, cnt == L ? T::Load(s + i) : T::LoadN(s + i, cnt));
      if (c.bias) t = T::Add(t, cnt == L ? T::Load(c.bias + i) : T::LoadN(c.bias + i, cnt));
      return t;
    };
    // Without a residual, bias or sum output the passes read x itself.
    const bool plain = s == nullptr && c.bias == nullptr && c.sum == nullptr;
    size_t i = 0;
    for (; i < full; i += L) {
      const V t = load_v(i, L);
      if (!plain) T::Store(v + i, t);
      if ((i / L) % 2 == 0) acc0 = T::Add(acc0, t);
      else acc1 = T::Add(acc1, t);
    }
    if (tail) {
      const V t = load_v(i, tail);
      if (!plain) T::StoreN(v + i, t, tail);
      acc0 = T::Add(acc0, t);
    }
    const float* vr = plain ? x : v;
    float mean = 0.0f;
    if (!c.rms) mean = T::ReduceAdd(T::Add(acc0, acc1)) * inv_n;
    // Pass 2: squared deviations.
    const V vm = T::Set1(mean);
    acc0 = T::Zero(), acc1 = T::Zero();
    for (i = 0; i < full; i += L) {
      const V d = T::Sub(T::Load(vr + i), vm);
      if ((i / L) % 2 == 0) acc0 = T::Fmadd(d, d, acc0);
      else acc1 = T::Fmadd(d, d, acc1);
    }
    if (tail) {
      // Lanes past n load 0 - mean: masked out by loading the deviation of a zeroed value
      // only where it exists.
      const V d = T::Sub(T::LoadN(vr + i, tail), vm);
      const V dz = T::Select(T::FirstN(tail), d, T::Zero());
      acc0 = T::Fmadd(dz, dz, acc0);
    }
    const float var = T::ReduceAdd(T::Add(acc0, acc1)) * inv_n;
    const V inv = T::Set1(1.0f / std::sqrt(var + c.epsilon));
    // Pass 3: normalise, scale, shift.
    const bool shift = c.beta != nullptr && !c.rms;
    for (i = 0; i < full; i += L) {
      V t = T::Mul(T::Mul(T::Sub(T::Load(vr + i), vm), inv), T::Load(c.gamma + i));
      if (shift) t = T::Add(t, T::Load(c.beta + i));
      T::Store(y + i, t);
    }
    if (tail) {
      V t = T::Mul(T::Mul(T::Sub(T::LoadN(vr + i, tail), vm), inv), T::LoadN(c.gamma + i, tail));
      if (shift) t = T::Add(t, T::LoadN(c.beta + i, tail));
      T::StoreN(y + i, t, tail);
    }
  }
}

template <class T>
void ActRows(const ActRowsCall& c) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  const size_t n = c.n;
  for (size_t r = 0; r < c.rows; ++r) {
    const float* x = c.x + static_cast<ptrdiff_t>(r) * c.x_stride;
    const float* m = c.mul ? c.mul + static_cast<ptrdiff_t>(r) * c.mul_stride : nullptr;
    float* y = c.y + static_cast<ptrdiff_t>(r) * c.y_stride;
    for (size_t i = 0; i < n; i += L) {
      const size_t cnt = n - i < L ? n - i : L;
      const bool whole = cnt == L;
      V t = whole ? T::Load(x + i) : T::LoadN(x + i, cnt);
      if (c.bias) t = T::Add(t, whole ? T::Load(c.bias + i) : T::LoadN(c.bias + i, cnt));
      t = Activate<T>(c.act, t);
      if (m) t = T::Mul(t, whole ? T::Load(m + i) : T::LoadN(m + i, cnt));
      if (whole) T::Store(y + i, t);
      else T::StoreN(y + i, t, cnt);
    }
  }
}

template <class T>
void RotaryRows(const RotaryRowsCall& c) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  const size_t h = c.n / 2;
  for (size_t r = 0; r < c.rows; ++r) {
    const float* x = c.x + static_cast<ptrdiff_t>(r) * c.x_stride;
    const float* co = c.cos + static_cast<ptrdiff_t>(r) * c.cs_stride;
    const float* si = c.sin + static_cast<ptrdiff_t>(r) * c.cs_stride;
    float* y = c.y + static_cast<ptrdiff_t>(r) * c.y_stride;
    for (size_t d = 0; d < h; d += L) {
      const size_t cnt = h - d < L ? h - d : L;
      const bool whole = cnt == L;
      auto ld = [&](const float* p) { return whole ? T::Load(p) : T::LoadN(p, cnt); };
      const V a = ld(x + d), b = ld(x + d + h);  // both halves read before either is written
      const V lo = T::Fnmadd(b, ld(si + d), T::Mul(a, ld(co + d)));
      const V hi = T::Fmadd(a, ld(si + d + h), T::Mul(b, ld(co + d + h)));
      if (whole) {
        T::Store(y + d, lo);
        T::Store(y + d + h, hi);
      } else {
        T::StoreN(y + d, lo, cnt);
        T::StoreN(y + d + h, hi, cnt);
      }
    }
  }
}

}  // namespace rowwise_simd
}  // namespace
}  // namespace vt::kernels
