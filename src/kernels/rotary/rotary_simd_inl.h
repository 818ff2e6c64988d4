// The rotary rows (rotary_ukernel.h) written once over a vector-traits type T that each ISA
// file defines in its own anonymous namespace and compiles with its own flags. T provides V,
// kLanes, Mul, Fmadd (a * b + c), Fnmadd (c - a * b), Load, LoadN (zeros past n), Store and
// StoreN. The namespace is anonymous on purpose: an inline function shared by two ISA files
// could be emitted with AVX-512 instructions and then picked by the linker for the AVX2 row.
#pragma once

#include <cstddef>

#include "kernels/rotary/rotary_ukernel.h"

namespace vt::kernels {
namespace {
namespace rotary_simd {

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

}  // namespace rotary_simd
}  // namespace
}  // namespace vt::kernels
