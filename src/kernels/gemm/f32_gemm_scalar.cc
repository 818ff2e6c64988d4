// Portable f32 GEMM microkernel and the scalar reference twin of every kernel. Compiled with
// -ffp-contract=off: a product and a sum are fused exactly where the summation order says so.
#include <algorithm>
#include <cmath>

#include "kernels/gemm/f32_gemm_ukernel.h"

namespace vt::kernels {
namespace {

// The value C(i, j) starts from (f32_gemm_ukernel.h).
inline float Init(size_t i, size_t j, const float* c_ij, const F32GemmTileParams& p) {
  if (p.accumulate) return *c_ij;
  return (p.bias_m ? p.bias_m[i] : 0.0f) + (p.bias_n ? p.bias_n[j] : 0.0f);
}

// As the vector kernels' max-then-min instructions: the second operand on equality or NaN (so a
// NaN comes out as `min`, and the sign of a zero as the vector units give it).
inline float Clamp(float t, const F32GemmTileParams& p) {
  if (!p.clamp) return t;
  const float lo = t > p.min ? t : p.min;
  return lo < p.max ? lo : p.max;
}

}  // namespace

void F32GemmUkernelReference(size_t MR, size_t NR, size_t mr, size_t nc, size_t kc,
                             const float* a, const float* b, size_t b_stride, float* c,
                             size_t c_stride, const F32GemmTileParams* params,
                             F32GemmProducts products) {
  const F32GemmTileParams& p = *params;
  for (size_t i = 0; i < mr; ++i) {
    for (size_t j = 0; j < nc; ++j) {
      const size_t sk = p.a_stride != 0 ? 1 : MR;
      const float* ai = p.a_stride != 0         ? a + i * p.a_stride
                        : p.a_panel_stride != 0 ? a + (i / MR) * p.a_panel_stride + i % MR
                                                : a + i;
      const float* bj = p.b_split != 0 && j >= NR / 2 ? b + p.b_split + j - NR / 2 : b + j;
      float* cij = c + i * c_stride + j;
      float r = Init(i, j, cij, p);
      for (size_t k0 = 0; k0 < kc; k0 += kF32GemmSumGroup) {
        float g = 0.0f;
        for (size_t k1 = k0; k1 < std::min(kc, k0 + kF32GemmSumGroup); k1 += kF32GemmSumBlock) {
          float s = 0.0f;
          for (size_t k = k1; k < std::min(kc, k1 + kF32GemmSumBlock); ++k) {
            if (products == F32GemmProducts::kFused) {
              s = std::fma(ai[k * sk], bj[k * b_stride], s);
            } else {
              const float prod = ai[k * sk] * bj[k * b_stride];
              s = s + prod;
            }
          }
          g = k1 == k0 ? s : g + s;
        }
        r = r + p.alpha * g;
      }
      *cij = Clamp(r, p);
    }
  }
}

void f32_gemm_4x16_scalar(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params) {
  constexpr size_t MR = 4, NR = 16;
  const F32GemmTileParams& p = *params;
  float run[MR][NR], grp[MR][NR];
  for (size_t i = 0; i < mr; ++i)
    for (size_t j = 0; j < nc; ++j) run[i][j] = Init(i, j, c + i * c_stride + j, p);
  for (size_t k0 = 0; k0 < kc; k0 += kF32GemmSumBlock) {
    const size_t len = std::min(kc - k0, kF32GemmSumBlock);
    const bool first_in_group = k0 % kF32GemmSumGroup == 0;
    const bool group_end = k0 + len == kc || (k0 + len) % kF32GemmSumGroup == 0;
    float acc[MR][NR] = {};
    if (nc == NR) {
      // Fully unrolled so that the accumulators become vector registers whatever the
      // optimisation level's loop heuristics (unswitching the generic loop halves the speed).
      for (size_t k = k0; k < k0 + len; ++k) {
        const float* bk = b + k * b_stride;
        const float* ak = a + k * MR;
#pragma GCC unroll 4
        for (size_t i = 0; i < MR; ++i)
#pragma GCC unroll 16
          for (size_t j = 0; j < NR; ++j) acc[i][j] += ak[i] * bk[j];
      }
    } else {
      for (size_t k = k0; k < k0 + len; ++k) {
        const float* bk = b + k * b_stride;
        const float* ak = a + k * MR;
        for (size_t i = 0; i < MR; ++i)
          for (size_t j = 0; j < nc; ++j) acc[i][j] += ak[i] * bk[j];
      }
    }
    for (size_t i = 0; i < mr; ++i)
      for (size_t j = 0; j < nc; ++j) {
        grp[i][j] = first_in_group ? acc[i][j] : grp[i][j] + acc[i][j];
        if (group_end) run[i][j] = run[i][j] + p.alpha * grp[i][j];
      }
  }
  for (size_t i = 0; i < mr; ++i)
    for (size_t j = 0; j < nc; ++j) c[i * c_stride + j] = Clamp(run[i][j], p);
}

}  // namespace vt::kernels
