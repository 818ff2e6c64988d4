// The row normalization passes shared by the AVX-512 and AVX2 rows (layernorm_ukernel.h),
// written once over a vector-traits type T (kernels/cpu/vec_avx512_inl.h, vec_avx2_inl.h)
// that each ISA file instantiates under its own compile flags.
//
// Three passes over the row, each with two vector accumulators (halving the dependent add
// chain) and a masked tail: (1) s = x + a + b into y (and `sum`), accumulating s or s^2;
// (2) for layer normalization, (s - mean)^2; (3) y = (s - mean) * (inv * gamma) + beta.
// A row of a few thousand floats stays in L1 between the passes.
//
// The namespace is anonymous on purpose (see kernels/cpu/vec_avx512_inl.h).
#pragma once

#include <cmath>
#include <cstddef>

#include "kernels/norm/layernorm_ukernel.h"

namespace vt::kernels {
namespace {
namespace layernorm_simd {

// Multiplying a tail vector by LoadN(kOnes, len) zeroes its lanes past the row.
alignas(64) inline constexpr float kOnes[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

// s over [i, i + len) (len <= kLanes; len < kLanes reads only len elements).
template <class T, bool kFull>
typename T::V SumAt(const LayerNormRow& r, size_t i, size_t len) {
  auto load = [&](const float* p) { return kFull ? T::Load(p + i) : T::LoadN(p + i, len); };
  typename T::V s = load(r.x);
  if (r.a != nullptr) s = T::Add(s, load(r.a));
  if (r.b != nullptr) s = T::Add(s, load(r.b));
  return s;
}

template <class T>
void Store(float* p, typename T::V v, size_t len) {
  if (len == T::kLanes) T::Store(p, v);
  else T::StoreN(p, v, len);
}

// Pass 1: s into y (and sum); returns sum(s) or, for rms, sum(s^2).
template <class T>
float AddPass(const LayerNormRow& r) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  V acc0 = T::Zero(), acc1 = T::Zero();
  size_t i = 0;
  for (; i + 2 * L <= r.n; i += 2 * L) {
    const V s0 = SumAt<T, true>(r, i, L), s1 = SumAt<T, true>(r, i + L, L);
    T::Store(r.y + i, s0);
    T::Store(r.y + i + L, s1);
    if (r.sum != nullptr) {
      T::Store(r.sum + i, s0);
      T::Store(r.sum + i + L, s1);
    }
    acc0 = r.rms ? T::Fmadd(s0, s0, acc0) : T::Add(acc0, s0);
    acc1 = r.rms ? T::Fmadd(s1, s1, acc1) : T::Add(acc1, s1);
  }
  for (; i < r.n; i += L) {
    const size_t len = r.n - i < L ? r.n - i : L;
    const V s = len == L ? SumAt<T, true>(r, i, L) : SumAt<T, false>(r, i, len);
    Store<T>(r.y + i, s, len);
    if (r.sum != nullptr) Store<T>(r.sum + i, s, len);
    acc0 = r.rms ? T::Fmadd(s, s, acc0) : T::Add(acc0, s);  // masked lanes are 0
  }
  return T::ReduceAdd(T::Add(acc0, acc1));
}

// Pass 2: sum((y - mean)^2).
template <class T>
float SquarePass(const LayerNormRow& r, float mean) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  const V m = T::Set1(mean);
  V acc0 = T::Zero(), acc1 = T::Zero();
  size_t i = 0;
  for (; i + 2 * L <= r.n; i += 2 * L) {
    const V d0 = T::Sub(T::Load(r.y + i), m), d1 = T::Sub(T::Load(r.y + i + L), m);
    acc0 = T::Fmadd(d0, d0, acc0);
    acc1 = T::Fmadd(d1, d1, acc1);
  }
  for (; i < r.n; i += L) {
    const size_t len = r.n - i < L ? r.n - i : L;
    V d = T::Sub(len == L ? T::Load(r.y + i) : T::LoadN(r.y + i, len), m);
    if (len < L) d = T::Mul(d, T::LoadN(kOnes, len));  // zero the lanes past the row
    acc0 = T::Fmadd(d, d, acc0);
  }
  return T::ReduceAdd(T::Add(acc0, acc1));
}

// Pass 3: y = (y - mean) * (inv * gamma) + beta.
template <class T>
void ScalePass(const LayerNormRow& r, float mean, float inv) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  const V m = T::Set1(mean), iv = T::Set1(inv);
  for (size_t i = 0; i < r.n; i += L) {
    const size_t len = r.n - i < L ? r.n - i : L;
    auto load = [&](const float* p) { return len == L ? T::Load(p + i) : T::LoadN(p + i, len); };
    const V c = r.gamma != nullptr ? T::Mul(iv, load(r.gamma)) : iv;
    const V b = r.beta != nullptr ? load(r.beta) : T::Zero();
    Store<T>(r.y + i, T::Fmadd(T::Sub(load(r.y), m), c, b), len);
  }
}

template <class T>
void Row(const LayerNormRow& r, float* mean, float* inv_std) {
  const float n = static_cast<float>(r.n);
  const float total = AddPass<T>(r);
  float m = 0.0f, var;
  if (r.rms) {
    var = total / n;
  } else {
    m = total / n;
    var = SquarePass<T>(r, m) / n;
  }
  const float inv = 1.0f / std::sqrt(var + r.epsilon);
  ScalePass<T>(r, m, inv);
  *mean = m;
  *inv_std = inv;
}

}  // namespace layernorm_simd
}  // namespace
}  // namespace vt::kernels
