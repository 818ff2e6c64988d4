// AVX-512F f32 GEMM microkernels (contract in f32_gemm_ukernel.h). This file alone is compiled
// with -mavx512f -mavx512bw -mavx512vl -mfma; it is only called after run-time CPU detection.
//
// Tile MR x 32: 2*MR zmm accumulators, two B vectors per k and one broadcast A element per row
// (folded into the FMA as an embedded broadcast). The N tail uses masked loads/stores, so B is
// never read past column nc and C never written past it. The 6x64 row also broadcasts A straight
// from the rows of a row-major matrix (F32GemmTileParams::a_stride), one pointer per row.
#include <immintrin.h>

// GCC 12's masked-load intrinsics trip -Wmaybe-uninitialized on their own placeholder operand.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/gemm/f32_gemm_ukernel.h"

namespace vt::kernels {
namespace {

// Bytes ahead of B that a streaming (decode) loop prefetches.
constexpr size_t kStreamPrefetch = 2048;
// The last reduction steps of a full-width tile, during which its C lines are pulled into L1.
constexpr size_t kCTail = 32;

// Where a tile reads A. PanelA: one packed MR panel, element (i, k) at a[k * MR + i]. RowsA:
// the rows of a row-major matrix, element (i, k) at row[i][k] (rows past the tile's mr point
// at its last row, so that nothing outside A is read). at(i) is element (i, 0) of the current
// step; next() moves one step along k.
template <int MR>
struct PanelA {
  const float* a;
  float at(int i) const { return a[i]; }
  void next() { a += MR; }
};
template <int MR>
struct RowsA {
  const float* row[MR];
  RowsA(const float* a, size_t stride, size_t mr) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
      row[i] = a + (static_cast<size_t>(i) < mr ? static_cast<size_t>(i) : mr - 1) * stride;
  }
  float at(int i) const { return *row[i]; }
  void next() {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) ++row[i];
  }
};

// kPrefetchC: step k < c_lines also prefetches line k of the C tile (row k / NV, vector
// k % NV) into L1. `a` is advanced past the kc steps.
template <int MR, int NV, bool kFull, bool kPrefetch = false, bool kPrefetchC = false, class A>
__attribute__((always_inline)) inline void MainLoop(size_t kc, A& a, const float* b,
                                                    const float* b_hi, size_t b_stride,
                                                    const __mmask16* mask,
                                                    __m512 (&acc)[MR][NV],
                                                    const float* c = nullptr,
                                                    size_t c_stride = 0, size_t c_lines = 0) {
#pragma GCC unroll 2
  for (size_t k = 0; k < kc; ++k) {
    if (kPrefetchC && k < c_lines)
      _mm_prefetch(reinterpret_cast<const char*>(c + (k / NV) * c_stride + (k % NV) * 16),
                   _MM_HINT_T0);
    if (kPrefetch) _mm_prefetch(reinterpret_cast<const char*>(b) + kStreamPrefetch, _MM_HINT_T0);
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const float* bs = (v < 2 ? b : b_hi) + 16 * v;
      bv[v] = kFull ? _mm512_loadu_ps(bs) : _mm512_maskz_loadu_ps(mask[v], bs);
    }
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512 av = _mm512_set1_ps(a.at(i));
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(av, bv[v], acc[i][v]);
    }
    a.next();
    b += b_stride;
    if (NV > 2) b_hi += b_stride;
  }
}

template <int MR, int NV, class A>
__attribute__((always_inline)) inline void Tile(size_t mr, size_t nc, size_t kc, A a,
                                                const float* b, size_t b_stride, float* c,
                                                size_t c_stride, const F32GemmTileParams& p) {
  // Vectors 2 and up: columns [32, 64) of a split-B tile come from the second panel.
  const float* b_hi = p.b_split != 0 ? b + p.b_split - 32 : b;
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
  __mmask16 mask[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const size_t lo = 16 * static_cast<size_t>(v);
    mask[v] = nc >= lo + 16 ? __mmask16(0xFFFF)
                            : (nc > lo ? __mmask16((1u << (nc - lo)) - 1u) : __mmask16(0));
  }
  // C is read and written once per K block, and in a large GEMM it has left L2 by the time
  // the next block comes back to a tile: its lines are requested into L2 now, and into L1
  // during the last kCTail steps (earlier, the B panel streaming through L1 would evict them
  // again), so that the epilogue neither waits on L3 nor on a read-for-ownership.
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (static_cast<size_t>(i) >= mr) break;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      if (mask[v] != 0)
        _mm_prefetch(reinterpret_cast<const char*>(c + static_cast<size_t>(i) * c_stride + 16 * v),
                     _MM_HINT_T1);
  }
  if (nc == 16 * NV && p.stream_b) {
    MainLoop<MR, NV, true, true>(kc, a, b, b_hi, b_stride, mask, acc);
  } else if (nc == 16 * NV) {
    const size_t head = kc > kCTail ? kc - kCTail : 0;
    MainLoop<MR, NV, true>(head, a, b, b_hi, b_stride, mask, acc);
    MainLoop<MR, NV, true, false, true>(kc - head, a, b + head * b_stride,
                                        b_hi + head * b_stride, b_stride, mask, acc, c,
                                        c_stride, mr * NV);
  } else {
    MainLoop<MR, NV, false>(kc, a, b, b_hi, b_stride, mask, acc);
  }

  const __m512 alpha = _mm512_set1_ps(p.alpha);
  const bool scale = p.alpha != 1.0f;
  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
  __m512 bn[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v)
    bn[v] = (!p.accumulate && p.bias_n) ? _mm512_maskz_loadu_ps(mask[v], p.bias_n + 16 * v)
                                        : _mm512_setzero_ps();
  // Every value is finished in registers before the first store: C rows are often a multiple
  // of 4 KiB apart, and a load issued after a store whose address has the same low 12 bits
  // waits for it (4K aliasing), which would serialise a load-add-store epilogue row by row.
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (static_cast<size_t>(i) >= mr) break;
    const float* ci = c + static_cast<size_t>(i) * c_stride;
    const __m512 bm = (!p.accumulate && p.bias_m) ? _mm512_set1_ps(p.bias_m[i])
                                                  : _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      __m512 t = scale ? _mm512_mul_ps(acc[i][v], alpha) : acc[i][v];
      if (p.accumulate) {
        t = _mm512_add_ps(t, _mm512_maskz_loadu_ps(mask[v], ci + 16 * v));
      } else {
        t = _mm512_add_ps(t, _mm512_add_ps(bm, bn[v]));
      }
      if (p.clamp) t = _mm512_min_ps(_mm512_max_ps(t, lo), hi);
      acc[i][v] = t;
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (static_cast<size_t>(i) >= mr) break;
    float* ci = c + static_cast<size_t>(i) * c_stride;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) _mm512_mask_storeu_ps(ci + 16 * v, mask[v], acc[i][v]);
  }
}

template <int MR, int NVMAX, class A>
inline void TileNV(size_t mr, size_t nc, size_t kc, A a, const float* b, size_t b_stride,
                   float* c, size_t c_stride, const F32GemmTileParams* p) {
  // Narrow tiles skip the FMAs of the empty upper vectors.
  const size_t nv = (nc + 15) / 16;
  if (NVMAX >= 4 && nv >= 4) {
    Tile<MR, (NVMAX >= 4 ? 4 : 1)>(mr, nc, kc, a, b, b_stride, c, c_stride, *p);
  } else if (NVMAX >= 3 && nv == 3) {
    Tile<MR, (NVMAX >= 3 ? 3 : 1)>(mr, nc, kc, a, b, b_stride, c, c_stride, *p);
  } else if (nv == 2) {
    Tile<MR, 2>(mr, nc, kc, a, b, b_stride, c, c_stride, *p);
  } else {
    Tile<MR, 1>(mr, nc, kc, a, b, b_stride, c, c_stride, *p);
  }
}

// kRowsA: the row also reads A in place (params->a_stride != 0; F32GemmKernel::rows_a).
template <int MR, int NVMAX, bool kRowsA = false>
inline void TileMR(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                   size_t b_stride, float* c, size_t c_stride, const F32GemmTileParams* p) {
  if (kRowsA && p->a_stride != 0) {
    TileNV<MR, NVMAX>(mr, nc, kc, RowsA<MR>(a, p->a_stride, mr), b, b_stride, c, c_stride, p);
  } else {
    TileNV<MR, NVMAX>(mr, nc, kc, PanelA<MR>{a}, b, b_stride, c, c_stride, p);
  }
}

}  // namespace

void f32_gemm_8x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params) {
  TileMR<8, 2>(mr, nc, kc, a, b, b_stride, c, c_stride, params);
}

void f32_gemm_12x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                           size_t b_stride, float* c, size_t c_stride,
                           const F32GemmTileParams* params) {
  TileMR<12, 2>(mr, nc, kc, a, b, b_stride, c, c_stride, params);
}

void f32_gemm_14x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                           size_t b_stride, float* c, size_t c_stride,
                           const F32GemmTileParams* params) {
  TileMR<14, 2>(mr, nc, kc, a, b, b_stride, c, c_stride, params);
}

void f32_gemm_6x64_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params) {
  TileMR<6, 4, true>(mr, nc, kc, a, b, b_stride, c, c_stride, params);
}

void f32_gemm_8x48_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params) {
  TileMR<8, 3>(mr, nc, kc, a, b, b_stride, c, c_stride, params);
}

namespace {

// Decode tiles (M <= 4, weights streamed once from memory): the few rows leave the FMA units
// idle, so the loop is built to keep memory busy instead: U independent k phases hide the FMA
// latency, and every other step prefetches the panel kStreamPrefetch bytes ahead, which lets a lone
// consumer run at the sequential-read floor (the hardware prefetcher alone stops short).
template <int MR, int U>
__attribute__((always_inline)) inline void DecodeTile(size_t mr, size_t nc, size_t kc,
                                                      const float* a, const float* b,
                                                      size_t b_stride, float* c,
                                                      size_t c_stride,
                                                      const F32GemmTileParams& p) {
  if (nc != 32 || b_stride != 32) {
    // Tails and in-place B: the general tile (same contract, same sums up to rounding).
    Tile<MR, 2>(mr, nc, kc, PanelA<MR>{a}, b, b_stride, c, c_stride, p);
    return;
  }
  __m512 acc[U][MR][2];
#pragma GCC unroll 4
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 4
    for (int i = 0; i < MR; ++i) acc[u][i][0] = acc[u][i][1] = _mm512_setzero_ps();
  size_t k = 0;
  for (; k + U <= kc; k += U) {
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      const float* bk = b + (k + u) * 32;
      if (u % 2 == 0)
        _mm_prefetch(reinterpret_cast<const char*>(bk) + kStreamPrefetch, _MM_HINT_T0);
      const __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
#pragma GCC unroll 4
      for (int i = 0; i < MR; ++i) {
        const __m512 av = _mm512_set1_ps(a[(k + u) * MR + i]);
        acc[u][i][0] = _mm512_fmadd_ps(av, b0, acc[u][i][0]);
        acc[u][i][1] = _mm512_fmadd_ps(av, b1, acc[u][i][1]);
      }
    }
  }
  for (; k < kc; ++k) {
    const __m512 b0 = _mm512_loadu_ps(b + k * 32), b1 = _mm512_loadu_ps(b + k * 32 + 16);
#pragma GCC unroll 4
    for (int i = 0; i < MR; ++i) {
      const __m512 av = _mm512_set1_ps(a[k * MR + i]);
      acc[0][i][0] = _mm512_fmadd_ps(av, b0, acc[0][i][0]);
      acc[0][i][1] = _mm512_fmadd_ps(av, b1, acc[0][i][1]);
    }
  }
  const __m512 alpha = _mm512_set1_ps(p.alpha);
  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
#pragma GCC unroll 4
  for (int i = 0; i < MR; ++i) {
    if (static_cast<size_t>(i) >= mr) break;
    float* ci = c + static_cast<size_t>(i) * c_stride;
#pragma GCC unroll 2
    for (int v = 0; v < 2; ++v) {
      __m512 s = acc[0][i][v];
#pragma GCC unroll 4
      for (int u = 1; u < U; ++u) s = _mm512_add_ps(s, acc[u][i][v]);
      __m512 t = p.alpha != 1.0f ? _mm512_mul_ps(s, alpha) : s;
      if (p.accumulate) {
        t = _mm512_add_ps(t, _mm512_loadu_ps(ci + 16 * v));
      } else {
        if (p.bias_m) t = _mm512_add_ps(t, _mm512_set1_ps(p.bias_m[i]));
        if (p.bias_n) t = _mm512_add_ps(t, _mm512_loadu_ps(p.bias_n + 16 * v));
      }
      if (p.clamp) t = _mm512_min_ps(_mm512_max_ps(t, lo), hi);
      _mm512_storeu_ps(ci + 16 * v, t);
    }
  }
}

}  // namespace

void f32_gemm_1x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params) {
  DecodeTile<1, 4>(mr, nc, kc, a, b, b_stride, c, c_stride, *params);
}
void f32_gemm_2x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params) {
  DecodeTile<2, 4>(mr, nc, kc, a, b, b_stride, c, c_stride, *params);
}
void f32_gemm_4x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params) {
  DecodeTile<4, 2>(mr, nc, kc, a, b, b_stride, c, c_stride, *params);
}

namespace {

// Narrow tiles (nc <= 4, e.g. a convolution producing 1-3 output positions): vectorised along
// the MR rows of the A panel, one accumulator per column, four k phases in flight to cover the
// FMA latency. Vectorising along N as the wide kernels do would leave 28 of 32 lanes idle.
template <int MR, int NC>
__attribute__((always_inline)) inline void NarrowTile(size_t mr, size_t kc, const float* a,
                                                      const float* b, size_t b_stride, float* c,
                                                      size_t c_stride,
                                                      const F32GemmTileParams& p) {
  static_assert(MR <= 16 && NC <= 4);
  const __mmask16 am = __mmask16((1u << MR) - 1u);
  __m512 acc[4][NC];
#pragma GCC unroll 4
  for (int u = 0; u < 4; ++u)
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j) acc[u][j] = _mm512_setzero_ps();
  size_t k = 0;
  for (; k + 4 <= kc; k += 4) {
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) {
      const __m512 av = _mm512_maskz_loadu_ps(am, a + (k + u) * MR);
      const float* bk = b + (k + u) * b_stride;
#pragma GCC unroll 4
      for (int j = 0; j < NC; ++j)
        acc[u][j] = _mm512_fmadd_ps(av, _mm512_set1_ps(bk[j]), acc[u][j]);
    }
  }
  for (; k < kc; ++k) {
    const __m512 av = _mm512_maskz_loadu_ps(am, a + k * MR);
    const float* bk = b + k * b_stride;
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j) acc[0][j] = _mm512_fmadd_ps(av, _mm512_set1_ps(bk[j]), acc[0][j]);
  }
  alignas(64) float col[NC][16];
#pragma GCC unroll 4
  for (int j = 0; j < NC; ++j)
    _mm512_store_ps(col[j], _mm512_add_ps(_mm512_add_ps(acc[0][j], acc[1][j]),
                                          _mm512_add_ps(acc[2][j], acc[3][j])));
  for (size_t i = 0; i < mr; ++i) {
    float* ci = c + i * c_stride;
    for (int j = 0; j < NC; ++j) {
      float t = p.alpha * col[j][i];
      if (p.accumulate) {
        t += ci[j];
      } else {
        if (p.bias_m) t += p.bias_m[i];
        if (p.bias_n) t += p.bias_n[j];
      }
      if (p.clamp) t = t < p.min ? p.min : (t > p.max ? p.max : t);
      ci[j] = t;
    }
  }
}

template <int MR>
void Narrow(size_t mr, size_t nc, size_t kc, const float* a, const float* b, size_t b_stride,
            float* c, size_t c_stride, const F32GemmTileParams* p) {
  switch (nc) {
    case 1: return NarrowTile<MR, 1>(mr, kc, a, b, b_stride, c, c_stride, *p);
    case 2: return NarrowTile<MR, 2>(mr, kc, a, b, b_stride, c, c_stride, *p);
    case 3: return NarrowTile<MR, 3>(mr, kc, a, b, b_stride, c, c_stride, *p);
    default: return NarrowTile<MR, 4>(mr, kc, a, b, b_stride, c, c_stride, *p);
  }
}

}  // namespace

void f32_gemm_8x4_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                         size_t b_stride, float* c, size_t c_stride,
                         const F32GemmTileParams* params) {
  Narrow<8>(mr, nc, kc, a, b, b_stride, c, c_stride, params);
}
void f32_gemm_12x4_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params) {
  Narrow<12>(mr, nc, kc, a, b, b_stride, c, c_stride, params);
}
void f32_gemm_14x4_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params) {
  Narrow<14>(mr, nc, kc, a, b, b_stride, c, c_stride, params);
}

}  // namespace vt::kernels
