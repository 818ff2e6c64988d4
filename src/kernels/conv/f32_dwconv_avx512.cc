// AVX-512F multi-tap depthwise kernel (contract in f32_dwconv.h). This file alone is compiled
// with AVX-512 flags; it is only called after run-time CPU detection.
#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/conv/f32_dwconv.h"

namespace vt::kernels {
namespace {

// NV vectors of outputs at y; `tail` = valid lanes of the last vector (1..16).
template <int NV>
__attribute__((always_inline)) inline void Step(const F32DwConvParams& p, const float* x,
                                                size_t n, int tail, float* y) {
  const __mmask16 last = tail >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << tail) - 1u);
  __m512 acc[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) acc[v] = _mm512_set1_ps(p.bias);
  for (size_t t = 0; t < p.taps; ++t) {
    const __m512 wv = _mm512_set1_ps(p.w[t]);
    const float* xt = x + p.off[t] + n;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const __m512 xv = v == NV - 1 ? _mm512_maskz_loadu_ps(last, xt + 16 * v)
                                    : _mm512_loadu_ps(xt + 16 * v);
      acc[v] = _mm512_fmadd_ps(wv, xv, acc[v]);
    }
  }
  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    __m512 r = acc[v];
    if (p.clamp) r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
    _mm512_mask_storeu_ps(y + n + 16 * v, v == NV - 1 ? last : __mmask16(0xFFFF), r);
  }
}

}  // namespace

void f32_dwconv_multitap_avx512(const F32DwConvParams* p, const float* x, float* y) {
  size_t n = 0;
  for (; n + 64 <= p->count; n += 64) Step<4>(*p, x, n, 16, y);
  const size_t left = p->count - n;
  if (left > 48) {
    Step<4>(*p, x, n, static_cast<int>(left - 48), y);
  } else if (left > 32) {
    Step<3>(*p, x, n, static_cast<int>(left - 32), y);
  } else if (left > 16) {
    Step<2>(*p, x, n, static_cast<int>(left - 16), y);
  } else if (left > 0) {
    Step<1>(*p, x, n, static_cast<int>(left), y);
  }
}

}  // namespace vt::kernels
