// Scalar reference twin of the small-M in-place rows (f32_gemv.h) and the portable rows, which
// are the twin with rounded products. Compiled with -ffp-contract=off: a product and a sum are
// fused exactly where the summation order says so.
#include <algorithm>
#include <cmath>

#include "kernels/gemm/f32_gemv.h"

namespace vt::kernels {
namespace {

// Columns of C a kKn pass keeps in its block and group sums.
constexpr size_t kChunk = 256;

inline float Init(size_t i, size_t j, const float* c_ij, const F32GemmEpilogue& ep) {
  if (ep.accumulate) return *c_ij;
  return (ep.bias_m ? ep.bias_m[i] : 0.0f) + (ep.bias_n ? ep.bias_n[j] : 0.0f);
}

inline float Clamp(float t, const F32GemmEpilogue& ep) {
  if (!ep.clamp) return t;
  const float lo = t > ep.min ? t : ep.min;
  return lo < ep.max ? lo : ep.max;
}

inline float Step(float a, float b, float s, F32GemmProducts products) {
  if (products == F32GemmProducts::kFused) return std::fma(a, b, s);
  const float prod = a * b;
  return s + prod;
}

// kKn: row by row through B (the per-element order is that of f32_gemm_ukernel.h whatever the
// loop nest, and this one reads B's rows in order).
void Kn(F32GemmProducts products, size_t m, size_t n0, size_t n1, size_t k, const float* a,
        size_t lda, const float* b, size_t ldb, float* c, size_t ldc, const F32GemmEpilogue& ep) {
  float r[kChunk], g[kChunk], s[kChunk];
  for (size_t i = 0; i < m; ++i) {
    const float* ai = a + i * lda;
    for (size_t j0 = n0; j0 < n1; j0 += kChunk) {
      const size_t nc = std::min(kChunk, n1 - j0);
      float* ci = c + i * ldc + j0;
      for (size_t j = 0; j < nc; ++j) r[j] = Init(i, j0 + j, ci + j, ep);
      for (size_t k0 = 0; k0 < k; k0 += kF32GemmSumGroup) {
        for (size_t k1 = k0; k1 < std::min(k, k0 + kF32GemmSumGroup); k1 += kF32GemmSumBlock) {
          std::fill(s, s + nc, 0.0f);
          for (size_t kk = k1; kk < std::min(k, k1 + kF32GemmSumBlock); ++kk) {
            const float av = ai[kk];
            const float* bk = b + kk * ldb + j0;
            for (size_t j = 0; j < nc; ++j) s[j] = Step(av, bk[j], s[j], products);
          }
          for (size_t j = 0; j < nc; ++j) g[j] = k1 == k0 ? s[j] : g[j] + s[j];
        }
        for (size_t j = 0; j < nc; ++j) r[j] = r[j] + ep.alpha * g[j];
      }
      for (size_t j = 0; j < nc; ++j) ci[j] = Clamp(r[j], ep);
    }
  }
}

// The tree of f32_gemv.h over 16 lane totals.
float LaneTree(const float (&v)[kF32GemvLanes]) {
  float t8[8], t4[4], t2[2];
  for (size_t l = 0; l < 8; ++l) t8[l] = v[l] + v[l + 8];
  for (size_t l = 0; l < 4; ++l) t4[l] = t8[l] + t8[l + 4];
  for (size_t l = 0; l < 2; ++l) t2[l] = t4[l] + t4[l + 2];
  return t2[0] + t2[1];
}

// kNk: one dot product per element, its steps spread over 16 lanes (steps past K count as
// 0 * 0, as the vector rows' masked loads give them).
void Nk(F32GemmProducts products, size_t m, size_t n0, size_t n1, size_t k, const float* a,
        size_t lda, const float* b, size_t ldb, float* c, size_t ldc, const F32GemmEpilogue& ep) {
  const size_t steps = (k + kF32GemvLanes - 1) / kF32GemvLanes;  // per lane
  for (size_t i = 0; i < m; ++i) {
    const float* ai = a + i * lda;
    for (size_t j = n0; j < n1; ++j) {
      const float* bj = b + j * ldb;
      float total[kF32GemvLanes] = {};
      for (size_t q0 = 0; q0 < steps; q0 += kF32GemvLaneBlock) {
        float s[kF32GemvLanes] = {};
        for (size_t q = q0; q < std::min(steps, q0 + kF32GemvLaneBlock); ++q)
          for (size_t l = 0; l < kF32GemvLanes; ++l) {
            const size_t kk = q * kF32GemvLanes + l;
            s[l] = Step(kk < k ? ai[kk] : 0.0f, kk < k ? bj[kk] : 0.0f, s[l], products);
          }
        for (size_t l = 0; l < kF32GemvLanes; ++l) total[l] = q0 == 0 ? s[l] : total[l] + s[l];
      }
      float r = Init(i, j, c + i * ldc + j, ep);
      if (k > 0) r = r + ep.alpha * LaneTree(total);
      c[i * ldc + j] = Clamp(r, ep);
    }
  }
}

}  // namespace

void F32GemvReference(F32GemvOrder order, F32GemmProducts products, size_t m, size_t n0,
                      size_t n1, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                      float* c, size_t ldc, const F32GemmEpilogue* ep) {
  if (order == F32GemvOrder::kKn) Kn(products, m, n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
  else Nk(products, m, n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
}

void f32_gemv_kn_8x256_portable(size_t m, size_t n0, size_t n1, size_t k, const float* a,
                                size_t lda, const float* b, size_t ldb, float* c, size_t ldc,
                                const F32GemmEpilogue* ep) {
  Kn(F32GemmProducts::kRounded, m, n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
}

void f32_gemv_nk_8x1_portable(size_t m, size_t n0, size_t n1, size_t k, const float* a,
                              size_t lda, const float* b, size_t ldb, float* c, size_t ldc,
                              const F32GemmEpilogue* ep) {
  Nk(F32GemmProducts::kRounded, m, n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
}

}  // namespace vt::kernels
