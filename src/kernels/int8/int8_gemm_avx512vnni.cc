// AVX-512 VNNI int8 GEMM microkernels (contract in int8_gemm_ukernel.h). This file alone is
// compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni (and -ffp-contract=off, so the
// dequantizing epilogue rounds exactly like the scalar twin); it is only called after run-time
// CPU detection.
//
// Tile MR x NR (NR = 16 * NV): MR * NV zmm int32 accumulators. Per group of 4 k: NV B vectors
// (16 columns x 4 bytes each) and, per row, one 32-bit broadcast of the row's 4 A bytes folded
// into vpdpbusd as an embedded broadcast. Narrow N tails skip the vectors past nc and use
// masked stores, so C is never written past column nc.
#include <immintrin.h>

// GCC 12's masked-load intrinsics trip -Wmaybe-uninitialized on their own placeholder operand.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <cstring>

#include "kernels/int8/int8_gemm_ukernel.h"

namespace vt::kernels {
namespace {

template <int MR, int NR, int NV>
__attribute__((always_inline)) inline void Tile(size_t mr, size_t nc, size_t kg,
                                                const uint8_t* a, const int8_t* b, void* c,
                                                size_t c_stride, const Int8GemmTileParams& p) {
  static_assert(NR % 16 == 0 && NV * 16 <= NR);
  __m512i acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_si512();

#pragma GCC unroll 2
  for (size_t g = 0; g < kg; ++g) {
    __m512i bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = _mm512_loadu_si512(b + 64 * v);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      int32_t a4;
      std::memcpy(&a4, a + 4 * i, 4);
      const __m512i av = _mm512_set1_epi32(a4);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_dpbusd_epi32(acc[i][v], av, bv[v]);
    }
    a += 4 * MR;
    b += 4 * NR;
  }

  __mmask16 mask[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const size_t lo = 16 * static_cast<size_t>(v);
    mask[v] = nc >= lo + 16 ? __mmask16(0xFFFF)
                            : (nc > lo ? __mmask16((1u << (nc - lo)) - 1u) : __mmask16(0));
  }
  // Per-column terms, loaded once per tile.
  __m512i comp[NV];
  __m512 scale[NV], bias[NV];
  const __m512i a_offset = _mm512_set1_epi32(p.a_offset);
  const __m512 scale_a = _mm512_set1_ps(p.scale_a);
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    comp[v] = (!p.accumulate && p.column_sums)
                  ? _mm512_mullo_epi32(a_offset,
                                       _mm512_maskz_loadu_epi32(mask[v], p.column_sums + 16 * v))
                  : _mm512_setzero_si512();
    scale[v] = p.dequantize
                   ? _mm512_mul_ps(scale_a, _mm512_maskz_loadu_ps(mask[v], p.scale_n + 16 * v))
                   : _mm512_setzero_ps();
    bias[v] = p.dequantize && p.bias_n ? _mm512_maskz_loadu_ps(mask[v], p.bias_n + 16 * v)
                                       : _mm512_setzero_ps();
  }
  auto* cb = static_cast<int32_t*>(c);
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (static_cast<size_t>(i) >= mr) break;
    int32_t* ci = cb + static_cast<size_t>(i) * c_stride;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      __m512i s = acc[i][v];
      s = p.accumulate ? _mm512_add_epi32(s, _mm512_maskz_loadu_epi32(mask[v], ci + 16 * v))
                       : _mm512_sub_epi32(s, comp[v]);
      if (p.dequantize) {
        __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(s), scale[v]);
        if (p.bias_n) f = _mm512_add_ps(f, bias[v]);
        _mm512_mask_storeu_ps(ci + 16 * v, mask[v], f);
      } else {
        _mm512_mask_storeu_epi32(ci + 16 * v, mask[v], s);
      }
    }
  }
}

// Dispatches on the number of 16-column vectors the tile really needs.
template <int MR, int NR>
inline void TileNc(size_t mr, size_t nc, size_t kg, const uint8_t* a, const int8_t* b, void* c,
                   size_t c_stride, const Int8GemmTileParams* p) {
  constexpr int kNv = NR / 16;
  const size_t nv = (nc + 15) / 16;
  if (nv >= 4 && kNv >= 4) {
    Tile<MR, NR, (kNv >= 4 ? 4 : 1)>(mr, nc, kg, a, b, c, c_stride, *p);
  } else if (nv == 3 && kNv >= 3) {
    Tile<MR, NR, (kNv >= 3 ? 3 : 1)>(mr, nc, kg, a, b, c, c_stride, *p);
  } else if (nv == 2 && kNv >= 2) {
    Tile<MR, NR, (kNv >= 2 ? 2 : 1)>(mr, nc, kg, a, b, c, c_stride, *p);
  } else {
    Tile<MR, NR, 1>(mr, nc, kg, a, b, c, c_stride, *p);
  }
}

}  // namespace

void gemm_s8_u8_8x48_avx512vnni(size_t mr, size_t nc, size_t kg, const uint8_t* a,
                                const int8_t* b, void* c, size_t c_stride,
                                const Int8GemmTileParams* params) {
  TileNc<8, 48>(mr, nc, kg, a, b, c, c_stride, params);
}

void gemm_s8_u8_12x32_avx512vnni(size_t mr, size_t nc, size_t kg, const uint8_t* a,
                                 const int8_t* b, void* c, size_t c_stride,
                                 const Int8GemmTileParams* params) {
  TileNc<12, 32>(mr, nc, kg, a, b, c, c_stride, params);
}

void gemm_s8_u8_6x64_avx512vnni(size_t mr, size_t nc, size_t kg, const uint8_t* a,
                                const int8_t* b, void* c, size_t c_stride,
                                const Int8GemmTileParams* params) {
  TileNc<6, 64>(mr, nc, kg, a, b, c, c_stride, params);
}

}  // namespace vt::kernels
