// AVX2 + FMA f32 GEMM microkernel (contract in f32_gemm_ukernel.h). This file alone is compiled
// with -mavx2 -mfma -ffp-contract=off (no multiply and add fused beyond the summation order's
// own); it is only called after run-time CPU detection.
//
// Tile 6 x 16: 12 ymm accumulators + 2 B vectors + 1 broadcast = 15 of the 16 registers, so the
// running value of the sum blocks lives in memory. The N tail uses vmaskmov loads/stores, which
// never touch masked-off columns.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

// GCC 12 cannot see that `grp` and `run` are written before they are read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

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
  __m256i mask[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    const size_t lo = 8 * static_cast<size_t>(v);
    mask[v] = LaneMask(nc > lo ? nc - lo : 0);
  }
  __m256 bn[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v)
    bn[v] = (!p.accumulate && p.bias_n) ? _mm256_maskload_ps(p.bias_n + 8 * v, mask[v])
                                        : _mm256_setzero_ps();
  // The value C(i, :) starts from: C itself when accumulating, else the sum of the biases.
  auto init = [&](int i, int v) {
    if (p.accumulate) return _mm256_maskload_ps(c + static_cast<size_t>(i) * c_stride + 8 * v, mask[v]);
    const __m256 bm = p.bias_m ? _mm256_set1_ps(p.bias_m[i]) : _mm256_setzero_ps();
    return _mm256_add_ps(bm, bn[v]);
  };
  const __m256 alpha = _mm256_set1_ps(p.alpha);
  const bool scale = p.alpha != 1.0f;
  // One sum block at a time (f32_gemm_ukernel.h): accumulators from zero, the blocks of a group
  // added up in `grp`, each group's sum added to the running value `run`.
  __m256 acc[MR][NV];
  __m256 grp[MR][NV];
  __m256 run[MR][NV];
  bool have_run = false;  // else the running value is still init
  size_t k0 = 0;
  for (;;) {
    const size_t len = std::min(kc - k0, kF32GemmSumBlock);
    const bool first_in_group = k0 % kF32GemmSumGroup == 0;
    const bool last = k0 + len == kc;
    const bool group_end = last || (k0 + len) % kF32GemmSumGroup == 0;
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_setzero_ps();
    if (nc == 8 * NV) {
      MainLoop<MR, NV, true>(len, a, b, b_stride, mask, acc);
    } else {
      MainLoop<MR, NV, false>(len, a, b, b_stride, mask, acc);
    }
    k0 += len;
    a += len * MR;
    b += len * b_stride;
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      if (static_cast<size_t>(i) >= mr) break;
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) {
        if (!first_in_group) acc[i][v] = _mm256_add_ps(grp[i][v], acc[i][v]);
        if (!group_end) {
          grp[i][v] = acc[i][v];
        } else if (!last) {
          const __m256 g = scale ? _mm256_mul_ps(acc[i][v], alpha) : acc[i][v];
          run[i][v] = _mm256_add_ps(have_run ? run[i][v] : init(i, v), g);
        }
      }
    }
    if (last) break;
    if (group_end) have_run = true;
  }

  const __m256 lo = _mm256_set1_ps(p.min), hi = _mm256_set1_ps(p.max);
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    if (static_cast<size_t>(i) >= mr) break;
    float* ci = c + static_cast<size_t>(i) * c_stride;
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      const __m256 g = scale ? _mm256_mul_ps(acc[i][v], alpha) : acc[i][v];
      const __m256 r = have_run ? run[i][v] : init(i, v);
      __m256 t = kc == 0 ? r : _mm256_add_ps(r, g);  // no group: C starts and ends at init
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
