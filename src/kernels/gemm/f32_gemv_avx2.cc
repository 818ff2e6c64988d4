// AVX2 + FMA small-M rows reading B in place (contract and summation orders in f32_gemv.h),
// built as the AVX-512 rows (f32_gemv_avx512.cc) with 8-lane vectors: kKn walks eight rows of B
// at a time (four, with the next rows prefetched, for five rows of A or more) across a band of
// columns as wide as the AVX-512 row's; kNk keeps each of the 16 reduction lanes as two vectors
// (lanes 0-7 and 8-15), so that the lane tree adds the same pairs as the AVX-512 row. This
// file alone is compiled with -mavx2 -mfma -ffp-contract=off; it is only called after run-time
// CPU detection.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/gemm/f32_gemv.h"

namespace vt::kernels {
namespace {

constexpr size_t kS = kF32GemmSumBlock, kG = kF32GemmSumGroup;
constexpr size_t kStreamPrefetch = 2048;
// kKn: rows of B per step and the next rows' prefetch, as in the AVX-512 row.
template <int MR>
constexpr size_t kKnRows = MR <= 4 ? 8 : 4;
template <int MR>
constexpr bool kKnPrefetchNext = MR > 4;
static_assert(kS % kKnRows<1> == 0 && kS % kKnRows<8> == 0, "a sum block is whole steps");

// Lane mask for the first n (0..8) lanes.
inline __m256i LaneMask(size_t n) {
  alignas(32) static const int32_t kTable[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                 0,  0,  0,  0,  0,  0,  0,  0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kTable + 8 - std::min<size_t>(n, 8)));
}

template <int MR, size_t BAND>
__attribute__((always_inline)) inline void KnBlock(size_t len, size_t nb, const float* a,
                                                   size_t lda, const float* b, size_t ldb,
                                                   float (*dst)[BAND]) {
  const size_t nv = nb / 8, tail = nb % 8;
  const __m256i tm = LaneMask(tail);
  const size_t vecs = nv + (tail != 0);
  for (int i = 0; i < MR; ++i)
    for (size_t v = 0; v < vecs; ++v) _mm256_store_ps(dst[i] + 8 * v, _mm256_setzero_ps());
  constexpr size_t kRows = kKnRows<MR>;
  size_t k = 0;
  for (; k + kRows <= len; k += kRows) {
    const float* br[kRows];
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r) br[r] = b + (k + r) * ldb;
    float av[MR][kRows];
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (size_t r = 0; r < kRows; ++r) av[i][r] = a[static_cast<size_t>(i) * lda + k + r];
    auto step = [&](size_t v, bool full) __attribute__((always_inline)) {
      const size_t o = 8 * v;
      if (kKnPrefetchNext<MR> && v % 2 == 0)  // one prefetch per 64-byte line
#pragma GCC unroll 8
        for (size_t r = 0; r < kRows; ++r)
          _mm_prefetch(reinterpret_cast<const char*>(br[r] + kRows * ldb + o), _MM_HINT_T0);
      __m256 x[kRows];
#pragma GCC unroll 8
      for (size_t r = 0; r < kRows; ++r)
        x[r] = full ? _mm256_loadu_ps(br[r] + o) : _mm256_maskload_ps(br[r] + o, tm);
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) {
        __m256 d = _mm256_load_ps(dst[i] + o);
#pragma GCC unroll 8
        for (size_t r = 0; r < kRows; ++r) d = _mm256_fmadd_ps(_mm256_set1_ps(av[i][r]), x[r], d);
        _mm256_store_ps(dst[i] + o, d);
      }
    };
    for (size_t v = 0; v < nv; ++v) step(v, true);
    if (tail != 0) step(nv, false);
  }
  for (; k < len; ++k) {
    const float* bk = b + k * ldb;
    for (size_t v = 0; v < vecs; ++v) {
      const size_t o = 8 * v;
      const __m256 x = v < nv ? _mm256_loadu_ps(bk + o) : _mm256_maskload_ps(bk + o, tm);
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) {
        const __m256 d = _mm256_load_ps(dst[i] + o);
        _mm256_store_ps(dst[i] + o,
                        _mm256_fmadd_ps(_mm256_set1_ps(a[static_cast<size_t>(i) * lda + k]), x, d));
      }
    }
  }
}

template <int MR, size_t BAND>
void KnBand(size_t j0, size_t nb, size_t K, const float* a, size_t lda, const float* b,
            size_t ldb, float* c, size_t ldc, const F32GemmEpilogue& ep) {
  alignas(32) float s[MR][BAND];
  alignas(32) float g[MR][BAND];
  const size_t nv = nb / 8, tail = nb % 8, vecs = nv + (tail != 0);
  const __m256i all = LaneMask(8), tm = LaneMask(tail);
  auto mask = [&](size_t v) { return v < nv ? all : tm; };
  for (int i = 0; i < MR && !ep.accumulate; ++i) {
    float* ci = c + static_cast<size_t>(i) * ldc + j0;
    const __m256 bm = ep.bias_m ? _mm256_set1_ps(ep.bias_m[i]) : _mm256_setzero_ps();
    for (size_t v = 0; v < vecs; ++v) {
      const __m256i mk = mask(v);
      const __m256 bn = ep.bias_n ? _mm256_maskload_ps(ep.bias_n + j0 + 8 * v, mk) : _mm256_setzero_ps();
      _mm256_maskstore_ps(ci + 8 * v, mk, _mm256_add_ps(bm, bn));
    }
  }
  const __m256 alpha = _mm256_set1_ps(ep.alpha);
  for (size_t k0 = 0; k0 < K; k0 += kG) {
    const size_t gl = std::min(kG, K - k0);
    for (size_t k1 = 0; k1 < gl; k1 += kS) {
      const size_t len = std::min(kS, gl - k1);
      KnBlock<MR, BAND>(len, nb, a + k0 + k1, lda, b + (k0 + k1) * ldb + j0, ldb, k1 == 0 ? g : s);
      if (k1 == 0) continue;
      for (int i = 0; i < MR; ++i)
        for (size_t v = 0; v < vecs; ++v)
          _mm256_store_ps(g[i] + 8 * v,
                          _mm256_add_ps(_mm256_load_ps(g[i] + 8 * v), _mm256_load_ps(s[i] + 8 * v)));
    }
    for (int i = 0; i < MR; ++i) {
      float* ci = c + static_cast<size_t>(i) * ldc + j0;
      for (size_t v = 0; v < vecs; ++v) {
        const __m256i mk = mask(v);
        const __m256 r = _mm256_maskload_ps(ci + 8 * v, mk);
        _mm256_maskstore_ps(ci + 8 * v, mk,
                            _mm256_add_ps(r, _mm256_mul_ps(alpha, _mm256_load_ps(g[i] + 8 * v))));
      }
    }
  }
  if (!ep.clamp) return;
  const __m256 lo = _mm256_set1_ps(ep.min), hi = _mm256_set1_ps(ep.max);
  for (int i = 0; i < MR; ++i) {
    float* ci = c + static_cast<size_t>(i) * ldc + j0;
    for (size_t v = 0; v < vecs; ++v) {
      const __m256i mk = mask(v);
      const __m256 r = _mm256_maskload_ps(ci + 8 * v, mk);
      _mm256_maskstore_ps(ci + 8 * v, mk, _mm256_min_ps(_mm256_max_ps(r, lo), hi));
    }
  }
}

template <int MR, size_t BAND>
void Kn(size_t n0, size_t n1, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
        float* c, size_t ldc, const F32GemmEpilogue& ep) {
  for (size_t j0 = n0; j0 < n1; j0 += BAND)
    KnBand<MR, BAND>(j0, std::min(BAND, n1 - j0), k, a, lda, b, ldb, c, ldc, ep);
}

// The tree of f32_gemv.h over 16 lanes held as lo (0-7) and hi (8-15).
inline float LaneTree(__m256 lo, __m256 hi) {
  const __m256 t8 = _mm256_add_ps(lo, hi);
  const __m128 t4 = _mm_add_ps(_mm256_castps256_ps128(t8), _mm256_extractf128_ps(t8, 1));
  const __m128 t2 = _mm_add_ps(t4, _mm_movehl_ps(t4, t4));
  return _mm_cvtss_f32(_mm_add_ss(t2, _mm_shuffle_ps(t2, t2, 1)));
}

template <int MR, int NC>
void NkTile(size_t m, size_t j, size_t nc, size_t K, const float* a, size_t lda, const float* b,
            size_t ldb, float* c, size_t ldc, const F32GemmEpilogue& ep) {
  const float* ar[MR];
  const float* bc[NC];
  for (int i = 0; i < MR; ++i) ar[i] = a + std::min(static_cast<size_t>(i), m - 1) * lda;
  for (int x = 0; x < NC; ++x) bc[x] = b + (j + std::min(static_cast<size_t>(x), nc - 1)) * ldb;
  const size_t steps = (K + 15) / 16;
  __m256 total[MR][NC][2];
  for (size_t q0 = 0; q0 < steps; q0 += kF32GemvLaneBlock) {
    const size_t qe = std::min(steps, q0 + kF32GemvLaneBlock);
    __m256 acc[MR][NC][2];
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int x = 0; x < NC; ++x) acc[i][x][0] = acc[i][x][1] = _mm256_setzero_ps();
    auto step = [&](size_t q, size_t n, bool full) __attribute__((always_inline)) {
      const size_t o = 16 * q;
      const __m256i m0 = LaneMask(n), m1 = LaneMask(n > 8 ? n - 8 : 0);
      __m256 bv[NC][2];
#pragma GCC unroll 8
      for (int x = 0; x < NC; ++x) {
        _mm_prefetch(reinterpret_cast<const char*>(bc[x] + o) + kStreamPrefetch, _MM_HINT_T0);
        bv[x][0] = full ? _mm256_loadu_ps(bc[x] + o) : _mm256_maskload_ps(bc[x] + o, m0);
        bv[x][1] = full ? _mm256_loadu_ps(bc[x] + o + 8) : _mm256_maskload_ps(bc[x] + o + 8, m1);
      }
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) {
        const __m256 a0 = full ? _mm256_loadu_ps(ar[i] + o) : _mm256_maskload_ps(ar[i] + o, m0);
        const __m256 a1 = full ? _mm256_loadu_ps(ar[i] + o + 8) : _mm256_maskload_ps(ar[i] + o + 8, m1);
#pragma GCC unroll 8
        for (int x = 0; x < NC; ++x) {
          acc[i][x][0] = _mm256_fmadd_ps(a0, bv[x][0], acc[i][x][0]);
          acc[i][x][1] = _mm256_fmadd_ps(a1, bv[x][1], acc[i][x][1]);
        }
      }
    };
    const size_t full_end = std::min(qe, K / 16);
    size_t q = q0;
    for (; q < full_end; ++q) step(q, 16, true);
    if (q < qe) step(q, K - 16 * q, false);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int x = 0; x < NC; ++x)
        for (int h = 0; h < 2; ++h)
          total[i][x][h] = q0 == 0 ? acc[i][x][h] : _mm256_add_ps(total[i][x][h], acc[i][x][h]);
  }
  for (size_t i = 0; i < m; ++i)
    for (size_t x = 0; x < nc; ++x) {
      float* cij = c + i * ldc + j + x;
      float r = ep.accumulate ? *cij
                              : (ep.bias_m ? ep.bias_m[i] : 0.0f) + (ep.bias_n ? ep.bias_n[j + x] : 0.0f);
      if (K > 0) r = r + ep.alpha * LaneTree(total[i][x][0], total[i][x][1]);
      if (ep.clamp) {
        const float l = r > ep.min ? r : ep.min;
        r = l < ep.max ? l : ep.max;
      }
      *cij = r;
    }
}

template <int MR, int NC>
void Nk(size_t m, size_t n0, size_t n1, size_t k, const float* a, size_t lda, const float* b,
        size_t ldb, float* c, size_t ldc, const F32GemmEpilogue& ep) {
  for (size_t j = n0; j < n1; j += NC)
    NkTile<MR, NC>(m, j, std::min<size_t>(NC, n1 - j), k, a, lda, b, ldb, c, ldc, ep);
}

}  // namespace

void f32_gemv_kn_8x4096_avx2(size_t m, size_t n0, size_t n1, size_t k, const float* a,
                             size_t lda, const float* b, size_t ldb, float* c, size_t ldc,
                             const F32GemmEpilogue* ep) {
  switch (m) {
    case 1: return Kn<1, 4096>(n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
    case 2: return Kn<2, 4096>(n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
    case 3: return Kn<3, 2048>(n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
    case 4: return Kn<4, 2048>(n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
    case 5: return Kn<5, 256>(n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
    case 6: return Kn<6, 256>(n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
    case 7: return Kn<7, 256>(n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
    default: return Kn<8, 256>(n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
  }
}

// Rows in chunks of at most two: 2 x NC x 2 accumulators of 16 registers; a B row read for the
// second chunk is still in L1 from the first.
void f32_gemv_nk_8x4_avx2(size_t m, size_t n0, size_t n1, size_t k, const float* a, size_t lda,
                          const float* b, size_t ldb, float* c, size_t ldc,
                          const F32GemmEpilogue* ep) {
  if (m == 1) return Nk<1, 4>(1, n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
  for (size_t j = n0; j < n1; j += 2) {
    const size_t j1 = std::min(n1, j + 2);
    for (size_t i = 0; i < m; i += 2) {
      F32GemmEpilogue e = *ep;
      if (e.bias_m != nullptr) e.bias_m += i;
      Nk<2, 2>(std::min<size_t>(2, m - i), j, j1, k, a + i * lda, lda, b, ldb, c + i * ldc, ldc, e);
    }
  }
}

}  // namespace vt::kernels
