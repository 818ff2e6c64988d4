// Portable f32 GEMM microkernel and the scalar reference twin of every kernel.
#include <algorithm>

#include "kernels/gemm/f32_gemm_ukernel.h"

namespace vt::kernels {
namespace {

inline float Finish(float acc, size_t i, size_t j, const float* c_ij,
                    const F32GemmTileParams& p) {
  float t = p.alpha * acc;
  if (p.accumulate) {
    t += *c_ij;
  } else {
    if (p.bias_m) t += p.bias_m[i];
    if (p.bias_n) t += p.bias_n[j];
  }
  if (p.clamp) t = std::min(std::max(t, p.min), p.max);
  return t;
}

}  // namespace

void F32GemmUkernelReference(size_t MR, size_t NR, size_t mr, size_t nc, size_t kc,
                             const float* a, const float* b, size_t b_stride, float* c,
                             size_t c_stride, const F32GemmTileParams* params) {
  for (size_t i = 0; i < mr; ++i) {
    for (size_t j = 0; j < nc; ++j) {
      float acc = 0.0f;
      const size_t sk = params->a_stride != 0 ? 1 : MR;
      const float* ai = params->a_stride != 0 ? a + i * params->a_stride : a + i;
      const float* bj = params->b_split != 0 && j >= NR / 2 ? b + params->b_split + j - NR / 2
                                                            : b + j;
      for (size_t k = 0; k < kc; ++k) acc += ai[k * sk] * bj[k * b_stride];
      float* cij = c + i * c_stride + j;
      *cij = Finish(acc, i, j, cij, *params);
    }
  }
}

void f32_gemm_4x16_scalar(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params) {
  constexpr size_t MR = 4, NR = 16;
  float acc[MR][NR] = {};
  if (nc == NR) {
    // Fully unrolled so that the accumulators become vector registers whatever the
    // optimisation level's loop heuristics (unswitching the generic loop halves the speed).
    for (size_t k = 0; k < kc; ++k) {
      const float* bk = b + k * b_stride;
      const float* ak = a + k * MR;
#pragma GCC unroll 4
      for (size_t i = 0; i < MR; ++i)
#pragma GCC unroll 16
        for (size_t j = 0; j < NR; ++j) acc[i][j] += ak[i] * bk[j];
    }
  } else {
    for (size_t k = 0; k < kc; ++k) {
      const float* bk = b + k * b_stride;
      const float* ak = a + k * MR;
      for (size_t i = 0; i < MR; ++i)
        for (size_t j = 0; j < nc; ++j) acc[i][j] += ak[i] * bk[j];
    }
  }
  for (size_t i = 0; i < mr; ++i) {
    for (size_t j = 0; j < nc; ++j) {
      float* cij = c + i * c_stride + j;
      *cij = Finish(acc[i][j], i, j, cij, *params);
    }
  }
}

}  // namespace vt::kernels
