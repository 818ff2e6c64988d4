// The 1-D transforms of Winograd F(4x4, 3x3) (kernels/conv/f32_winograd.h), written once for
// scalars and SIMD vectors: each row of the table instantiates them with its own type, so the
// rows perform the same operations in the same order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace vt::kernels {

// Floats per row of the vector input transforms' scratch: a group of 16 tiles (AVX-512)
// starting at any tile tw < TW reads the 80 floats from 4 tw (AVX2: 8 tiles, 34 floats), so
// 4 TW + 76 suffice; rounded up to 16.
inline size_t WinogradRowPitch(int64_t TW) {
  return static_cast<size_t>((4 * TW + 76 + 15) / 16 * 16);
}

// Calls f(tr, tw0, tw1, offset) for each tile-row segment of tiles [t0, t0 + count) in order:
// tiles tw0 .. tw1 - 1 of tile row tr, the first being tile t0 + offset.
template <typename F>
inline void ForEachTileSegment(int64_t TW, int64_t t0, int64_t count, F f) {
  for (int64_t t = t0; t < t0 + count;) {
    const int64_t tr = t / TW, tw0 = t % TW, tw1 = std::min(TW, tw0 + (t0 + count - t));
    f(tr, tw0, tw1, t - t0);
    t += tw1 - tw0;
  }
}

// t = B^T d for d[0..5] (B^T in kernels/conv/f32_winograd.h). `Mul(k, x)` is k * x.
template <typename V, typename Mul>
inline void WinogradInput6T(const V* d, V* t, Mul mul) {
  const V a = d[4] - mul(4.0f, d[2]), b = d[3] - mul(4.0f, d[1]);
  const V c = d[4] - d[2], e = mul(2.0f, d[3] - d[1]);
  t[0] = (mul(4.0f, d[0]) - mul(5.0f, d[2])) + d[4];
  t[1] = a + b;
  t[2] = a - b;
  t[3] = c + e;
  t[4] = c - e;
  t[5] = (mul(4.0f, d[1]) - mul(5.0f, d[3])) + d[5];
}

// o = A^T m for m[0..5] (A^T in kernels/conv/f32_winograd.h).
template <typename V, typename Mul>
inline void WinogradOutput6T(const V* m, V* o, Mul mul) {
  const V p = m[1] + m[2], q = m[1] - m[2], r = m[3] + m[4], s = m[3] - m[4];
  o[0] = (m[0] + p) + r;
  o[1] = q + mul(2.0f, s);
  o[2] = p + mul(4.0f, r);
  o[3] = (q + mul(8.0f, s)) + m[5];
}

inline void WinogradInput6(const float* d, float* t) {
  WinogradInput6T(d, t, [](float k, float x) { return k * x; });
}
inline void WinogradOutput6(const float* m, float* o) {
  WinogradOutput6T(m, o, [](float k, float x) { return k * x; });
}

}  // namespace vt::kernels
