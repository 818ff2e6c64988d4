// AVX2 + FMA multi-tap depthwise kernel (contract in f32_dwconv.h). This file alone is compiled
// with AVX2 flags; it is only called after run-time CPU detection.
//
// Every filter runs the row loop: 32 outputs per step in four accumulators (the FMA latency),
// then 8 at a time, then a scalar tail with the same fused multiply-add per tap, so each output
// is the same sum whichever part of the row computes it. (No masked vector moves: vmaskmovps is
// microcoded on AMD cores.)
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "kernels/conv/f32_dwconv.h"

namespace vt::kernels {
namespace {

template <int NV>
__attribute__((always_inline)) inline void Step(const F32DwConvParams& p, const float* x,
                                                float* y) {
  __m256 acc[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) acc[v] = _mm256_set1_ps(p.bias);
  for (size_t t = 0; t < p.taps; ++t) {
    const __m256 wv = _mm256_set1_ps(p.w[t]);
    const float* xt = x + p.off[t];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[v] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(xt + 8 * v), acc[v]);
  }
  const __m256 lo = _mm256_set1_ps(p.min), hi = _mm256_set1_ps(p.max);
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    __m256 r = acc[v];
    if (p.clamp) r = _mm256_min_ps(_mm256_max_ps(r, lo), hi);
    _mm256_storeu_ps(y + 8 * v, r);
  }
}

void Row(const F32DwConvParams& p, const float* x, float* y) {
  size_t i = 0;
  for (; i + 32 <= p.width; i += 32) Step<4>(p, x + i, y + i);
  for (; i + 8 <= p.width; i += 8) Step<1>(p, x + i, y + i);
  for (; i < p.width; ++i) {
    float acc = p.bias;
    for (size_t t = 0; t < p.taps; ++t) acc = std::fma(p.w[t], x[p.off[t] + i], acc);
    // As the vector min/max: the second operand on equality or NaN.
    if (p.clamp) acc = std::min(p.max, acc > p.min ? acc : p.min);
    y[i] = acc;
  }
}

}  // namespace

void f32_dwconv_multitap_avx2(const F32DwConvParams* p, const float* x, float* y) {
  for (size_t r = 0; r < p->rows; ++r) Row(*p, x + r * p->x_pitch, y + r * p->y_pitch);
}

}  // namespace vt::kernels
