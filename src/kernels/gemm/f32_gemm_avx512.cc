// AVX-512F f32 GEMM microkernels (contract in f32_gemm_ukernel.h). This file alone is compiled
// with -mavx512f -mavx512bw -mavx512vl -mfma; it is only called after run-time CPU detection.
//
// Tile MR x 32: 2*MR zmm accumulators, two B vectors per k and one broadcast A element per row
// (folded into the FMA as an embedded broadcast). The N tail uses masked loads/stores, so B is
// never read past column nc and C never written past it. The 6x64 row also broadcasts A straight
// from the rows of a row-major matrix (F32GemmTileParams::a_stride), one pointer per row.
// Every kernel sums in the order of f32_gemm_ukernel.h, one fused multiply-add per step; the
// file is compiled with -ffp-contract=off so that no other multiply and add are fused.
#include <immintrin.h>

#include <algorithm>

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

// The value a C element starts from (f32_gemm_ukernel.h): C itself when accumulating, else
// the sum of the biases (0 where absent).
template <int MR, int NV>
struct TileInit {
  __m512 bn[NV];
  const __mmask16* mask;
  __attribute__((always_inline)) TileInit(const F32GemmTileParams& p, const __mmask16* m)
      : mask(m) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      bn[v] = (!p.accumulate && p.bias_n) ? _mm512_maskz_loadu_ps(mask[v], p.bias_n + 16 * v)
                                          : _mm512_setzero_ps();
  }
  __attribute__((always_inline)) __m512 at(const F32GemmTileParams& p, const float* c,
                                           size_t c_stride, int i, int v) const {
    if (p.accumulate)
      return _mm512_maskz_loadu_ps(mask[v], c + static_cast<size_t>(i) * c_stride + 16 * v);
    const __m512 bm = p.bias_m ? _mm512_set1_ps(p.bias_m[i]) : _mm512_setzero_ps();
    return _mm512_add_ps(bm, bn[v]);
  }
};

template <int MR, int NV, class A>
__attribute__((always_inline)) inline void Tile(size_t mr, size_t nc, size_t kc, A a,
                                                const float* b, size_t b_stride, float* c,
                                                size_t c_stride, const F32GemmTileParams& p) {
  // Vectors 2 and up: columns [32, 64) of a split-B tile come from the second panel.
  const float* b_hi = p.b_split != 0 ? b + p.b_split - 32 : b;
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
  const TileInit<MR, NV> init(p, mask);
  const __m512 alpha = _mm512_set1_ps(p.alpha);
  const bool scale = p.alpha != 1.0f;
  // One sum block at a time (f32_gemm_ukernel.h): the accumulators start from zero; the blocks
  // of a group are added up in `grp` and each group's sum into the running value `run`. Both
  // live in memory (the accumulators take the registers); at the end of a group the
  // accumulators hold its sum, and at the end of the tile they take the final values.
  __m512 acc[MR][NV];
  __m512 grp[MR][NV];
  __m512 run[MR][NV];
  bool have_run = false;  // else the running value is still init
  size_t k0 = 0;
  for (;;) {
    const size_t len = std::min(kc - k0, kF32GemmSumBlock);
    const bool first_in_group = k0 % kF32GemmSumGroup == 0;
    const bool last = k0 + len == kc;
    const bool group_end = last || (k0 + len) % kF32GemmSumGroup == 0;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
    if (nc == 16 * NV && p.stream_b) {
      MainLoop<MR, NV, true, true>(len, a, b, b_hi, b_stride, mask, acc);
    } else if (nc == 16 * NV && last) {
      const size_t head = len > kCTail ? len - kCTail : 0;
      MainLoop<MR, NV, true>(head, a, b, b_hi, b_stride, mask, acc);
      MainLoop<MR, NV, true, false, true>(len - head, a, b + head * b_stride,
                                          b_hi + head * b_stride, b_stride, mask, acc, c,
                                          c_stride, mr * NV);
    } else if (nc == 16 * NV) {
      MainLoop<MR, NV, true>(len, a, b, b_hi, b_stride, mask, acc);
    } else {
      MainLoop<MR, NV, false>(len, a, b, b_hi, b_stride, mask, acc);
    }
    k0 += len;
    b += len * b_stride;
    b_hi += len * b_stride;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      if (static_cast<size_t>(i) >= mr) break;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        if (!first_in_group) acc[i][v] = _mm512_add_ps(grp[i][v], acc[i][v]);
        if (!group_end) {
          grp[i][v] = acc[i][v];
        } else if (!last) {
          const __m512 g = scale ? _mm512_mul_ps(acc[i][v], alpha) : acc[i][v];
          run[i][v] = _mm512_add_ps(have_run ? run[i][v] : init.at(p, c, c_stride, i, v), g);
        }
      }
    }
    if (last) break;
    if (group_end) have_run = true;
  }

  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
  // Every value is finished in registers before the first store: C rows are often a multiple
  // of 4 KiB apart, and a load issued after a store whose address has the same low 12 bits
  // waits for it (4K aliasing), which would serialise a load-add-store epilogue row by row.
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (static_cast<size_t>(i) >= mr) break;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const __m512 g = scale ? _mm512_mul_ps(acc[i][v], alpha) : acc[i][v];
      const __m512 r = have_run ? run[i][v] : init.at(p, c, c_stride, i, v);
      __m512 t = kc == 0 ? r : _mm512_add_ps(r, g);  // no group: C starts and ends at init
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
// idle, so the loop is built to keep memory busy instead. U sum blocks of a group run side by
// side (each its own accumulators, so U independent chains hide the FMA latency, and each
// element is still summed in the order of f32_gemm_ukernel.h), and every other step prefetches
// each of their panel streams kStreamPrefetch bytes ahead, which lets a lone consumer run at
// the sequential-read floor (the hardware prefetcher alone stops short).

// Steps [t0, t1) of blocks 0..C-1 side by side (block u's step t is k = u * S + t). kFull: all
// 32 columns (no masks). Every other step prefetches each block's panel stream.
template <int MR, int U, int C, bool kFull>
__attribute__((always_inline)) inline void DecodeChains(size_t t0, size_t t1, const float* a,
                                                        const float* b, size_t b_stride,
                                                        const __mmask16 (&mask)[2],
                                                        __m512 (&acc)[U][MR][2]) {
  static_assert(C <= U);
  constexpr size_t S = kF32GemmSumBlock;
  const float* bu[C];
  const float* au[C];
#pragma GCC unroll 4
  for (int u = 0; u < C; ++u) {
    bu[u] = b + (u * S + t0) * b_stride;
    au[u] = a + (u * S + t0) * MR;
  }
  auto step = [&](bool prefetch) __attribute__((always_inline)) {
#pragma GCC unroll 4
    for (int u = 0; u < C; ++u) {
      if (prefetch)
        _mm_prefetch(reinterpret_cast<const char*>(bu[u]) + kStreamPrefetch, _MM_HINT_T0);
      const __m512 b0 = kFull ? _mm512_loadu_ps(bu[u]) : _mm512_maskz_loadu_ps(mask[0], bu[u]);
      const __m512 b1 =
          kFull ? _mm512_loadu_ps(bu[u] + 16) : _mm512_maskz_loadu_ps(mask[1], bu[u] + 16);
#pragma GCC unroll 4
      for (int i = 0; i < MR; ++i) {
        const __m512 av = _mm512_set1_ps(au[u][i]);
        acc[u][i][0] = _mm512_fmadd_ps(av, b0, acc[u][i][0]);
        acc[u][i][1] = _mm512_fmadd_ps(av, b1, acc[u][i][1]);
      }
      bu[u] += b_stride;
      au[u] += MR;
    }
  };
  size_t t = t0;
  for (; t + 2 <= t1; t += 2) {
    step(true);
    step(false);
  }
  if (t < t1) step(false);
}

// Steps [t0, t1) of the first `c` (1..U) blocks side by side.
template <int MR, int U, bool kFull>
__attribute__((always_inline)) inline void DecodeChainsN(int c, size_t t0, size_t t1,
                                                         const float* a, const float* b,
                                                         size_t b_stride,
                                                         const __mmask16 (&mask)[2],
                                                         __m512 (&acc)[U][MR][2]) {
  switch (c) {
    case 4: if constexpr (U >= 4) DecodeChains<MR, U, (U >= 4 ? 4 : 1), kFull>(t0, t1, a, b, b_stride, mask, acc); break;
    case 3: if constexpr (U >= 3) DecodeChains<MR, U, (U >= 3 ? 3 : 1), kFull>(t0, t1, a, b, b_stride, mask, acc); break;
    case 2: DecodeChains<MR, U, 2, kFull>(t0, t1, a, b, b_stride, mask, acc); break;
    case 1: DecodeChains<MR, U, 1, kFull>(t0, t1, a, b, b_stride, mask, acc); break;
    default: break;
  }
}

// The sum of one group of `len` <= kF32GemmSumGroup steps into g: its blocks [u * S, min(len,
// (u + 1) * S)) added in order, U at a time side by side.
template <int MR, int U, bool kFull>
__attribute__((always_inline)) inline void DecodeGroup(size_t len, const float* a,
                                                       const float* b, size_t b_stride,
                                                       const __mmask16 (&mask)[2],
                                                       __m512 (&g)[MR][2]) {
  constexpr size_t S = kF32GemmSumBlock;
  const size_t rem = len % S, blocks = len / S + (rem != 0);
  for (size_t j = 0; j < blocks; j += U) {
    const int n = static_cast<int>(std::min<size_t>(U, blocks - j));
    // The short last block (rem steps), if it is in this pass, stops early.
    const bool short_last = rem != 0 && j + n == blocks;
    const float* aj = a + j * S * MR;
    const float* bj = b + j * S * b_stride;
    __m512 acc[U][MR][2];
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u)
#pragma GCC unroll 4
      for (int i = 0; i < MR; ++i) acc[u][i][0] = acc[u][i][1] = _mm512_setzero_ps();
    DecodeChainsN<MR, U, kFull>(n, 0, short_last ? rem : S, aj, bj, b_stride, mask, acc);
    if (short_last) DecodeChainsN<MR, U, kFull>(n - 1, rem, S, aj, bj, b_stride, mask, acc);
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      if (u >= n) break;
#pragma GCC unroll 4
      for (int i = 0; i < MR; ++i)
#pragma GCC unroll 2
        for (int v = 0; v < 2; ++v)
          g[i][v] = j == 0 && u == 0 ? acc[0][i][v] : _mm512_add_ps(g[i][v], acc[u][i][v]);
    }
  }
}

template <int MR, int U>
__attribute__((always_inline)) inline void DecodeTile(size_t mr, size_t nc, size_t kc,
                                                      const float* a, const float* b,
                                                      size_t b_stride, float* c,
                                                      size_t c_stride,
                                                      const F32GemmTileParams& p) {
  __mmask16 mask[2];
#pragma GCC unroll 2
  for (int v = 0; v < 2; ++v) {
    const size_t lo = 16 * static_cast<size_t>(v);
    mask[v] = nc >= lo + 16 ? __mmask16(0xFFFF)
                            : (nc > lo ? __mmask16((1u << (nc - lo)) - 1u) : __mmask16(0));
  }
  const TileInit<MR, 2> init(p, mask);
  const __m512 alpha = _mm512_set1_ps(p.alpha);
  const bool scale = p.alpha != 1.0f;
  __m512 run[MR][2];
#pragma GCC unroll 4
  for (int i = 0; i < MR; ++i) {
    if (static_cast<size_t>(i) >= mr) break;
    run[i][0] = init.at(p, c, c_stride, i, 0);
    run[i][1] = init.at(p, c, c_stride, i, 1);
  }
  for (size_t k0 = 0; k0 < kc; k0 += kF32GemmSumGroup) {
    const size_t len = std::min(kF32GemmSumGroup, kc - k0);
    __m512 g[MR][2];
    if (nc == 32) {
      DecodeGroup<MR, U, true>(len, a + k0 * MR, b + k0 * b_stride, b_stride, mask, g);
    } else {
      DecodeGroup<MR, U, false>(len, a + k0 * MR, b + k0 * b_stride, b_stride, mask, g);
    }
#pragma GCC unroll 4
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < 2; ++v)
        run[i][v] = _mm512_add_ps(run[i][v], scale ? _mm512_mul_ps(g[i][v], alpha) : g[i][v]);
  }
  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
#pragma GCC unroll 4
  for (int i = 0; i < MR; ++i) {
    if (static_cast<size_t>(i) >= mr) break;
    float* ci = c + static_cast<size_t>(i) * c_stride;
#pragma GCC unroll 2
    for (int v = 0; v < 2; ++v) {
      __m512 t = run[i][v];
      if (p.clamp) t = _mm512_min_ps(_mm512_max_ps(t, lo), hi);
      _mm512_mask_storeu_ps(ci + 16 * v, mask[v], t);
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
// the MR rows of the A panel, one accumulator per column. Vectorising along N as the wide
// kernels do would leave 28 of 32 lanes idle. To cover the FMA latency, the four sum blocks of
// a group run side by side (each element still summed in the order of f32_gemm_ukernel.h).

// Steps [t0, t1) of blocks 0..C-1 side by side (block u's step t is k = u * S + t).
template <int MR, int NC, int C>
__attribute__((always_inline)) inline void NarrowChains(size_t t0, size_t t1, const float* a,
                                                        const float* b, size_t b_stride,
                                                        __m512 (&acc)[4][NC]) {
  constexpr size_t S = kF32GemmSumBlock;
  const __mmask16 am = __mmask16((1u << MR) - 1u);
  for (size_t t = t0; t < t1; ++t) {
#pragma GCC unroll 4
    for (int u = 0; u < C; ++u) {
      const size_t k = u * S + t;
      const __m512 av = _mm512_maskz_loadu_ps(am, a + k * MR);
      const float* bk = b + k * b_stride;
#pragma GCC unroll 4
      for (int j = 0; j < NC; ++j)
        acc[u][j] = _mm512_fmadd_ps(av, _mm512_set1_ps(bk[j]), acc[u][j]);
    }
  }
}

template <int MR, int NC>
__attribute__((always_inline)) inline void NarrowChainsN(int c, size_t t0, size_t t1,
                                                         const float* a, const float* b,
                                                         size_t b_stride, __m512 (&acc)[4][NC]) {
  switch (c) {
    case 4: NarrowChains<MR, NC, 4>(t0, t1, a, b, b_stride, acc); break;
    case 3: NarrowChains<MR, NC, 3>(t0, t1, a, b, b_stride, acc); break;
    case 2: NarrowChains<MR, NC, 2>(t0, t1, a, b, b_stride, acc); break;
    case 1: NarrowChains<MR, NC, 1>(t0, t1, a, b, b_stride, acc); break;
    default: break;
  }
}

// The sum of one group of `len` <= kF32GemmSumGroup steps into g (lanes = rows): its blocks
// added in order, all side by side.
template <int MR, int NC>
__attribute__((always_inline)) inline void NarrowGroup(size_t len, const float* a,
                                                       const float* b, size_t b_stride,
                                                       __m512 (&g)[NC]) {
  constexpr size_t S = kF32GemmSumBlock;
  static_assert(kF32GemmSumGroup == 4 * S);
  const size_t rem = len % S;
  const int n = static_cast<int>(len / S + (rem != 0));
  __m512 acc[4][NC];
#pragma GCC unroll 4
  for (int u = 0; u < 4; ++u)
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j) acc[u][j] = _mm512_setzero_ps();
  NarrowChainsN<MR, NC>(n, 0, rem != 0 ? rem : S, a, b, b_stride, acc);
  if (rem != 0) NarrowChainsN<MR, NC>(n - 1, rem, S, a, b, b_stride, acc);
#pragma GCC unroll 4
  for (int j = 0; j < NC; ++j) {
    g[j] = acc[0][j];
#pragma GCC unroll 4
    for (int u = 1; u < 4; ++u)
      if (u < n) g[j] = _mm512_add_ps(g[j], acc[u][j]);
  }
}

template <int MR, int NC>
__attribute__((always_inline)) inline void NarrowTile(size_t mr, size_t kc, const float* a,
                                                      const float* b, size_t b_stride, float* c,
                                                      size_t c_stride,
                                                      const F32GemmTileParams& p) {
  static_assert(MR <= 16 && NC <= 4);
  const __mmask16 rows = __mmask16((1u << mr) - 1u);
  alignas(64) float col[NC][16] = {};
  __m512 run[NC];
  if (p.accumulate) {
    for (size_t i = 0; i < mr; ++i)
      for (int j = 0; j < NC; ++j) col[j][i] = c[i * c_stride + j];
  }
  const __m512 bm = (!p.accumulate && p.bias_m) ? _mm512_maskz_loadu_ps(rows, p.bias_m)
                                                : _mm512_setzero_ps();
#pragma GCC unroll 4
  for (int j = 0; j < NC; ++j) {
    const __m512 bn = (!p.accumulate && p.bias_n) ? _mm512_set1_ps(p.bias_n[j])
                                                  : _mm512_setzero_ps();
    run[j] = p.accumulate ? _mm512_load_ps(col[j]) : _mm512_add_ps(bm, bn);
  }
  const __m512 alpha = _mm512_set1_ps(p.alpha);
  for (size_t k0 = 0; k0 < kc; k0 += kF32GemmSumGroup) {
    __m512 g[NC];
    NarrowGroup<MR, NC>(std::min(kF32GemmSumGroup, kc - k0), a + k0 * MR, b + k0 * b_stride,
                        b_stride, g);
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j)
      run[j] = _mm512_add_ps(run[j], p.alpha != 1.0f ? _mm512_mul_ps(g[j], alpha) : g[j]);
  }
  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
#pragma GCC unroll 4
  for (int j = 0; j < NC; ++j)
    _mm512_store_ps(col[j], p.clamp ? _mm512_min_ps(_mm512_max_ps(run[j], lo), hi) : run[j]);
  for (size_t i = 0; i < mr; ++i)
    for (int j = 0; j < NC; ++j) c[i * c_stride + j] = col[j][i];
}

// Up to T panels side by side (mr <= T * MR rows, F32GemmTileParams::a_panel_stride apart):
// one accumulator per (panel, column), so T x NC chains cover the FMA latency and each B
// element is broadcast once for all the panels; the blocks of a group run one after the other.
// Slots past the last panel re-read it and are not stored.
template <int MR, int NC, int T>
__attribute__((always_inline)) inline void NarrowPanels(size_t mr, size_t kc, const float* a,
                                                        size_t a_panel_stride, const float* b,
                                                        size_t b_stride, float* c,
                                                        size_t c_stride,
                                                        const F32GemmTileParams& p) {
  static_assert(MR <= 16 && NC <= 4);
  constexpr size_t S = kF32GemmSumBlock;
  const size_t panels = (mr + MR - 1) / MR;
  const __mmask16 am = __mmask16((1u << MR) - 1u);
  const float* ap[T];
  size_t rows[T];
  __m512 run[T][NC];
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) {
    const size_t pt = std::min(static_cast<size_t>(t), panels - 1);
    ap[t] = a + pt * a_panel_stride;
    rows[t] = static_cast<size_t>(t) < panels ? std::min<size_t>(MR, mr - pt * MR) : 0;
    alignas(64) float col[NC][16] = {};
    if (p.accumulate)
      for (size_t i = 0; i < rows[t]; ++i)
        for (int j = 0; j < NC; ++j) col[j][i] = c[(pt * MR + i) * c_stride + j];
    const __mmask16 rm = __mmask16((1u << rows[t]) - 1u);
    const __m512 bm = (!p.accumulate && p.bias_m) ? _mm512_maskz_loadu_ps(rm, p.bias_m + pt * MR)
                                                  : _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j) {
      const __m512 bn = (!p.accumulate && p.bias_n) ? _mm512_set1_ps(p.bias_n[j])
                                                    : _mm512_setzero_ps();
      run[t][j] = p.accumulate ? _mm512_load_ps(col[j]) : _mm512_add_ps(bm, bn);
    }
  }
  const __m512 alpha = _mm512_set1_ps(p.alpha);
  for (size_t k0 = 0; k0 < kc; k0 += kF32GemmSumGroup) {
    const size_t k_end = std::min(kc, k0 + kF32GemmSumGroup);
    __m512 g[T][NC];
    for (size_t k1 = k0; k1 < k_end; k1 += S) {
      __m512 acc[T][NC];
#pragma GCC unroll 8
      for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
        for (int j = 0; j < NC; ++j) acc[t][j] = _mm512_setzero_ps();
      const size_t k2 = std::min(k_end, k1 + S);
      for (size_t k = k1; k < k2; ++k) {
        const float* bk = b + k * b_stride;
        __m512 bv[NC];
#pragma GCC unroll 4
        for (int j = 0; j < NC; ++j) bv[j] = _mm512_set1_ps(bk[j]);
#pragma GCC unroll 8
        for (int t = 0; t < T; ++t) {
          const __m512 av = _mm512_maskz_loadu_ps(am, ap[t] + k * MR);
#pragma GCC unroll 4
          for (int j = 0; j < NC; ++j) acc[t][j] = _mm512_fmadd_ps(av, bv[j], acc[t][j]);
        }
      }
#pragma GCC unroll 8
      for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
        for (int j = 0; j < NC; ++j)
          g[t][j] = k1 == k0 ? acc[t][j] : _mm512_add_ps(g[t][j], acc[t][j]);
    }
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
      for (int j = 0; j < NC; ++j)
        run[t][j] =
            _mm512_add_ps(run[t][j], p.alpha != 1.0f ? _mm512_mul_ps(g[t][j], alpha) : g[t][j]);
  }
  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) {
    alignas(64) float col[NC][16];
#pragma GCC unroll 4
    for (int j = 0; j < NC; ++j)
      _mm512_store_ps(col[j],
                      p.clamp ? _mm512_min_ps(_mm512_max_ps(run[t][j], lo), hi) : run[t][j]);
    for (size_t i = 0; i < rows[t]; ++i)
      for (int j = 0; j < NC; ++j) c[(t * MR + i) * c_stride + j] = col[j][i];
  }
}

// The rows of a multi-panel call in groups of T panels (T x NC >= 8 chains); a lone last panel
// takes the single-panel tile, whose sum blocks run side by side instead.
template <int MR, int NC, int T>
void NarrowMulti(size_t mr, size_t kc, const float* a, const float* b, size_t b_stride, float* c,
                 size_t c_stride, const F32GemmTileParams& p) {
  const size_t stride = p.a_panel_stride;
  F32GemmTileParams q = p;
  for (size_t r0 = 0; r0 < mr; r0 += T * MR) {
    const size_t n = std::min<size_t>(T * MR, mr - r0);
    const float* a0 = a + (r0 / MR) * stride;
    q.bias_m = p.bias_m ? p.bias_m + r0 : nullptr;
    if (n <= MR) {
      NarrowTile<MR, NC>(n, kc, a0, b, b_stride, c + r0 * c_stride, c_stride, q);
    } else {
      NarrowPanels<MR, NC, T>(n, kc, a0, stride, b, b_stride, c + r0 * c_stride, c_stride, q);
    }
  }
}

template <int MR>
void Narrow(size_t mr, size_t nc, size_t kc, const float* a, const float* b, size_t b_stride,
            float* c, size_t c_stride, const F32GemmTileParams* p) {
  if (p->a_panel_stride != 0 && mr > MR) {
    switch (nc) {
      case 1: return NarrowMulti<MR, 1, 8>(mr, kc, a, b, b_stride, c, c_stride, *p);
      case 2: return NarrowMulti<MR, 2, 4>(mr, kc, a, b, b_stride, c, c_stride, *p);
      case 3: return NarrowMulti<MR, 3, 3>(mr, kc, a, b, b_stride, c, c_stride, *p);
      default: return NarrowMulti<MR, 4, 2>(mr, kc, a, b, b_stride, c, c_stride, *p);
    }
  }
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
