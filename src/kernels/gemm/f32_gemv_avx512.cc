// AVX-512F small-M rows reading B in place (contract and summation orders in f32_gemv.h). This
// file alone is compiled with the AVX-512 flags and -ffp-contract=off; it is only called after
// run-time CPU detection.
//
// kKn: B is walked row by row, eight rows at a time, across a band of columns (4096 columns,
// 16 KiB of each row, for one or two rows of A; 2048 for three or four; narrower for more
// rows): each step reads one cache line of each of eight rows, which the hardware prefetcher
// follows, and adds their products into the sums of the band with one load and one store per
// row of A. The wide bands use no software prefetch: rows 16 KiB apart fall in the same L1
// sets, and prefetching the next rows' lines there made the GEMVs of one to four rows
// 6-22% slower than eight rows per step without it (docs/benchmarks.md, "Eight rows per
// step"). The 256-column bands of five rows or more read 1 KiB of a row per visit; they keep
// four rows per step and prefetch the next four rows' lines, without which they ran 1.4x
// slower. The block and group sums of f32_gemm_ukernel.h live in arrays on the stack (2 x rows
// x band floats, at most 64 KiB), the running value in C. A band of 1024 columns (one 4 KiB
// page per row, sums in L1) streamed B at 0.70-0.87x the packed panels' speed for 1-4 rows;
// 16 KiB per row comes within 1.2x of a plain read of the same bytes for one row of A
// (docs/benchmarks.md, "Weights read in place by small-M GEMMs").
// (Walking a 32-column strip down all K rows instead, as the GEMM microkernels do on panels,
// touches a new page per row.)
// kNk: each element is a dot product of a row of A and a row of B, both contiguous: MR x NC
// accumulators of 16 lanes (at most 4 x 4), NC rows of B streamed side by side.
#include <immintrin.h>

#include <algorithm>

// GCC 12's masked-load intrinsics trip -Wmaybe-uninitialized on their own placeholder operand.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/gemm/f32_gemv.h"

namespace vt::kernels {
namespace {

constexpr size_t kS = kF32GemmSumBlock, kG = kF32GemmSumGroup;
// kKn: rows of B read per step for MR rows of A, and whether each step prefetches the next
// rows' lines (only the narrow bands of five rows or more; see the file comment).
template <int MR>
constexpr size_t kKnRows = MR <= 4 ? 8 : 4;
template <int MR>
constexpr bool kKnPrefetchNext = MR > 4;
static_assert(kS % kKnRows<1> == 0 && kS % kKnRows<8> == 0, "a sum block is whole steps");
// Bytes ahead of each B row stream that the kNk loop prefetches.
constexpr size_t kStreamPrefetch = 2048;

inline __mmask16 TailMask(size_t n) { return static_cast<__mmask16>((1u << n) - 1u); }

// dst[i][0, nb) = the sum over rows [0, len) of A(i, k) B(k, :) from zero, in row order. `b`
// points at row 0's first column; rows are ldb apart.
template <int MR, size_t BAND>
__attribute__((always_inline)) inline void KnBlock(size_t len, size_t nb, const float* a,
                                                   size_t lda, const float* b, size_t ldb,
                                                   float (*dst)[BAND]) {
  const size_t nv = nb / 16, tail = nb % 16;
  const __mmask16 tm = TailMask(tail);
  const size_t vecs = nv + (tail != 0);
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
    for (size_t v = 0; v < vecs; ++v) _mm512_store_ps(dst[i] + 16 * v, _mm512_setzero_ps());
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
      const size_t o = 16 * v;
      __m512 x[kRows];
#pragma GCC unroll 8
      for (size_t r = 0; r < kRows && kKnPrefetchNext<MR>; ++r)
        _mm_prefetch(reinterpret_cast<const char*>(br[r] + kRows * ldb + o), _MM_HINT_T0);
#pragma GCC unroll 8
      for (size_t r = 0; r < kRows; ++r)
        x[r] = full ? _mm512_loadu_ps(br[r] + o) : _mm512_maskz_loadu_ps(tm, br[r] + o);
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) {
        __m512 d = _mm512_load_ps(dst[i] + o);
#pragma GCC unroll 8
        for (size_t r = 0; r < kRows; ++r) d = _mm512_fmadd_ps(_mm512_set1_ps(av[i][r]), x[r], d);
        _mm512_store_ps(dst[i] + o, d);
      }
    };
    for (size_t v = 0; v < nv; ++v) step(v, true);
    if (tail != 0) step(nv, false);
  }
  for (; k < len; ++k) {
    const float* bk = b + k * ldb;
    for (size_t v = 0; v < vecs; ++v) {
      const size_t o = 16 * v;
      const __m512 x = v < nv ? _mm512_loadu_ps(bk + o) : _mm512_maskz_loadu_ps(tm, bk + o);
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) {
        const __m512 d = _mm512_load_ps(dst[i] + o);
        _mm512_store_ps(dst[i] + o,
                        _mm512_fmadd_ps(_mm512_set1_ps(a[static_cast<size_t>(i) * lda + k]), x, d));
      }
    }
  }
}

// Columns [j0, j0 + nb) (nb <= BAND) of MR rows.
template <int MR, size_t BAND>
void KnBand(size_t j0, size_t nb, size_t K, const float* a, size_t lda, const float* b,
            size_t ldb, float* c, size_t ldc, const F32GemmEpilogue& ep) {
  alignas(64) float s[MR][BAND];
  alignas(64) float g[MR][BAND];
  const size_t nv = nb / 16, tail = nb % 16, vecs = nv + (tail != 0);
  const __mmask16 tm = TailMask(tail);
  auto mask = [&](size_t v) { return v < nv ? __mmask16(0xFFFF) : tm; };
  // The running value r lives in C: its initial value first.
  for (int i = 0; i < MR && !ep.accumulate; ++i) {
    float* ci = c + static_cast<size_t>(i) * ldc + j0;
    const __m512 bm = ep.bias_m ? _mm512_set1_ps(ep.bias_m[i]) : _mm512_setzero_ps();
    for (size_t v = 0; v < vecs; ++v) {
      const size_t o = 16 * v;
      const __mmask16 mk = mask(v);
      const __m512 bn = ep.bias_n ? _mm512_maskz_loadu_ps(mk, ep.bias_n + j0 + o) : _mm512_setzero_ps();
      _mm512_mask_storeu_ps(ci + o, mk, _mm512_add_ps(bm, bn));
    }
  }
  const __m512 alpha = _mm512_set1_ps(ep.alpha);
  for (size_t k0 = 0; k0 < K; k0 += kG) {
    const size_t gl = std::min(kG, K - k0);
    for (size_t k1 = 0; k1 < gl; k1 += kS) {
      const size_t len = std::min(kS, gl - k1);
      KnBlock<MR, BAND>(len, nb, a + k0 + k1, lda, b + (k0 + k1) * ldb + j0, ldb, k1 == 0 ? g : s);
      if (k1 == 0) continue;
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i)
        for (size_t v = 0; v < vecs; ++v)
          _mm512_store_ps(g[i] + 16 * v,
                          _mm512_add_ps(_mm512_load_ps(g[i] + 16 * v), _mm512_load_ps(s[i] + 16 * v)));
    }
    for (int i = 0; i < MR; ++i) {
      float* ci = c + static_cast<size_t>(i) * ldc + j0;
      for (size_t v = 0; v < vecs; ++v) {
        const size_t o = 16 * v;
        const __mmask16 mk = mask(v);
        const __m512 r = _mm512_maskz_loadu_ps(mk, ci + o);
        _mm512_mask_storeu_ps(ci + o, mk, _mm512_add_ps(r, _mm512_mul_ps(alpha, _mm512_load_ps(g[i] + o))));
      }
    }
  }
  if (!ep.clamp) return;
  const __m512 lo = _mm512_set1_ps(ep.min), hi = _mm512_set1_ps(ep.max);
  for (int i = 0; i < MR; ++i) {
    float* ci = c + static_cast<size_t>(i) * ldc + j0;
    for (size_t v = 0; v < vecs; ++v) {
      const __mmask16 mk = mask(v);
      const __m512 r = _mm512_maskz_loadu_ps(mk, ci + 16 * v);
      _mm512_mask_storeu_ps(ci + 16 * v, mk, _mm512_min_ps(_mm512_max_ps(r, lo), hi));
    }
  }
}

template <int MR, size_t BAND>
void Kn(size_t n0, size_t n1, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
        float* c, size_t ldc, const F32GemmEpilogue& ep) {
  for (size_t j0 = n0; j0 < n1; j0 += BAND)
    KnBand<MR, BAND>(j0, std::min(BAND, n1 - j0), k, a, lda, b, ldb, c, ldc, ep);
}

// The tree of f32_gemv.h over the 16 lanes of v.
inline float LaneTree(__m512 v) {
  const __m256 t8 = _mm512_castps512_ps256(_mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0xEE)));
  const __m128 t4 = _mm_add_ps(_mm256_castps256_ps128(t8), _mm256_extractf128_ps(t8, 1));
  const __m128 t2 = _mm_add_ps(t4, _mm_movehl_ps(t4, t4));
  return _mm_cvtss_f32(_mm_add_ss(t2, _mm_shuffle_ps(t2, t2, 1)));
}

// Rows [0, m) (m <= MR) and columns [j, j + nc) (nc <= NC): rows and columns past them read
// the last valid one and are not stored.
template <int MR, int NC>
void NkTile(size_t m, size_t j, size_t nc, size_t K, const float* a, size_t lda, const float* b,
            size_t ldb, float* c, size_t ldc, const F32GemmEpilogue& ep) {
  const float* ar[MR];
  const float* bc[NC];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) ar[i] = a + std::min(static_cast<size_t>(i), m - 1) * lda;
#pragma GCC unroll 8
  for (int x = 0; x < NC; ++x) bc[x] = b + (j + std::min(static_cast<size_t>(x), nc - 1)) * ldb;
  const size_t steps = (K + 15) / 16;
  __m512 total[MR][NC];
  for (size_t q0 = 0; q0 < steps; q0 += kF32GemvLaneBlock) {
    const size_t qe = std::min(steps, q0 + kF32GemvLaneBlock);
    __m512 acc[MR][NC];
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int x = 0; x < NC; ++x) acc[i][x] = _mm512_setzero_ps();
    auto step = [&](size_t q, __mmask16 mk, bool full) __attribute__((always_inline)) {
      const size_t o = 16 * q;
      __m512 bv[NC];
#pragma GCC unroll 8
      for (int x = 0; x < NC; ++x) {
        _mm_prefetch(reinterpret_cast<const char*>(bc[x] + o) + kStreamPrefetch, _MM_HINT_T0);
        bv[x] = full ? _mm512_loadu_ps(bc[x] + o) : _mm512_maskz_loadu_ps(mk, bc[x] + o);
      }
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) {
        const __m512 av = full ? _mm512_loadu_ps(ar[i] + o) : _mm512_maskz_loadu_ps(mk, ar[i] + o);
#pragma GCC unroll 8
        for (int x = 0; x < NC; ++x) acc[i][x] = _mm512_fmadd_ps(av, bv[x], acc[i][x]);
      }
    };
    const size_t full_end = std::min(qe, K / 16);
    size_t q = q0;
    for (; q < full_end; ++q) step(q, 0xFFFF, true);
    if (q < qe) step(q, TailMask(K - 16 * q), false);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int x = 0; x < NC; ++x)
        total[i][x] = q0 == 0 ? acc[i][x] : _mm512_add_ps(total[i][x], acc[i][x]);
  }
  for (size_t i = 0; i < m; ++i)
    for (size_t x = 0; x < nc; ++x) {
      float* cij = c + i * ldc + j + x;
      float r = ep.accumulate ? *cij
                              : (ep.bias_m ? ep.bias_m[i] : 0.0f) + (ep.bias_n ? ep.bias_n[j + x] : 0.0f);
      if (K > 0) r = r + ep.alpha * LaneTree(total[i][x]);
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

void f32_gemv_kn_8x4096_avx512(size_t m, size_t n0, size_t n1, size_t k, const float* a,
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

void f32_gemv_nk_8x8_avx512(size_t m, size_t n0, size_t n1, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc,
                            const F32GemmEpilogue* ep) {
  if (m == 1) return Nk<1, 8>(m, n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
  if (m == 2) return Nk<2, 8>(m, n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
  if (m <= 4) return Nk<4, 4>(m, n0, n1, k, a, lda, b, ldb, c, ldc, *ep);
  // More rows: four at a time over the same four B rows, which the second pass reads from L2
  // (an 8 x 2 tile re-read all eight A rows from L2 per B row pair: 0.4x the packed speed).
  for (size_t j = n0; j < n1; j += 4) {
    const size_t j1 = std::min(n1, j + 4);
    for (size_t i = 0; i < m; i += 4) {
      F32GemmEpilogue e = *ep;
      if (e.bias_m != nullptr) e.bias_m += i;
      Nk<4, 4>(std::min<size_t>(4, m - i), j, j1, k, a + i * lda, lda, b, ldb, c + i * ldc, ldc, e);
    }
  }
}

}  // namespace vt::kernels
