// AVX2 + FMA f32 GEMM microkernel (contract in f32_gemm_ukernel.h). This file alone is compiled
// with -mavx2 -mfma; it is only called after run-time CPU detection.
//
// Tile 6 x 16: 12 ymm accumulators + 2 B vectors + 1 broadcast = 15 of the 16 registers.
// The N tail uses vmaskmov loads/stores, which never touch masked-off columns.
#include <immintrin.h>

#include <cstdint>

#include "kernels/gemm/f32_gemm_ukernel.h"

namespace vt::kernels {
namespace {

// Lane masks for 0..8 active lanes.
inline __m256i LaneMask(size_t n) {
  alignas(32) static const int32_t kTable[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                 0,  0,  0,  0,  0,  0,  0,  0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kTable + 8 - (n > 8 ? 8 : n)));
}

template <int MR, int NV, bool kFull>
__attribute__((always_inline)) inline void MainLoop(size_t kc, const float* a, const float* b,
                                                    size_t b_stride, const __m256i* mask,
                                                    __m256 (&acc)[MR][NV]) {
#pragma GCC unroll 2
  for (size_t k = 0; k < kc; ++k) {
    __m256 bv[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      bv[v] = kFull ? _mm256_loadu_ps(b + 8 * v) : _mm256_maskload_ps(b + 8 * v, mask[v]);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const __m256 av = _mm256_broadcast_ss(a + i);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_fmadd_ps(av, bv[v], acc[i][v]);
    }
    a += MR;
    b += b_stride;
  }
}

template <int MR, int NV>
__attribute__((always_inline)) inline void Tile(size_t mr, size_t nc, size_t kc, const float* a,
                                                const float* b, size_t b_stride, float* c,
                                                size_t c_stride, const F32GemmTileParams& p) {
  __m256 acc[MR][NV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_setzero_ps();
  __m256i mask[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    const size_t lo = 8 * static_cast<size_t>(v);
    mask[v] = LaneMask(nc > lo ? nc - lo : 0);
  }
  if (nc == 8 * NV) {
    MainLoop<MR, NV, true>(kc, a, b, b_stride, mask, acc);
  } else {
    MainLoop<MR, NV, false>(kc, a, b, b_stride, mask, acc);
  }

  const __m256 alpha = _mm256_set1_ps(p.alpha);
  const bool scale = p.alpha != 1.0f;
  const __m256 lo = _mm256_set1_ps(p.min), hi = _mm256_set1_ps(p.max);
  __m256 bn[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v)
    bn[v] = (!p.accumulate && p.bias_n) ? _mm256_maskload_ps(p.bias_n + 8 * v, mask[v])
                                        : _mm256_setzero_ps();
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    if (static_cast<size_t>(i) >= mr) break;
    float* ci = c + static_cast<size_t>(i) * c_stride;
    const __m256 bm = (!p.accumulate && p.bias_m) ? _mm256_set1_ps(p.bias_m[i])
                                                  : _mm256_setzero_ps();
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      __m256 t = scale ? _mm256_mul_ps(acc[i][v], alpha) : acc[i][v];
      if (p.accumulate) {
        t = _mm256_add_ps(t, _mm256_maskload_ps(ci + 8 * v, mask[v]));
      } else {
        t = _mm256_add_ps(t, _mm256_add_ps(bm, bn[v]));
      }
      if (p.clamp) t = _mm256_min_ps(_mm256_max_ps(t, lo), hi);
      _mm256_maskstore_ps(ci + 8 * v, mask[v], t);
    }
  }
}

}  // namespace

void f32_gemm_6x16_avx2(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                        size_t b_stride, float* c, size_t c_stride,
                        const F32GemmTileParams* params) {
  if (nc <= 8) {
    Tile<6, 1>(mr, nc, kc, a, b, b_stride, c, c_stride, *params);
  } else {
    Tile<6, 2>(mr, nc, kc, a, b, b_stride, c, c_stride, *params);
  }
}

}  // namespace vt::kernels
