// gemm_q4_0_f32_8x16_avx512 (q4_ukernel.h). Compiled with -mavx512f -mavx512bw -mavx512vl
// -mavx512dq -mfma; called only after run-time detection.
//
// Each 18-byte block is widened in registers to 32 exact f32 weights: the 16 nibble bytes are
// zero-extended to 16 dwords, and vpermps looks the low / high nibble up in a 16-entry table
// holding d * (q - 8) (the table is the exact product of the f16 scale and the level, and
// vpermps reads only the low 4 index bits, so no mask is needed). The weights then meet the
// f32 activations in FMAs; one 16-lane accumulator per (activation row, weight row), reduced
// once at the end. Rows of the panel are processed G at a time so that MR * G accumulators fit
// the 32 zmm registers (MR 1: all 16 rows in one pass, the weights stream once).
#include <immintrin.h>

// GCC 12 reports the undefined pass-through operands inside its own AVX-512 intrinsic headers
// as maybe-uninitialized once these templates are inlined (a known false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <cstring>

#include "kernels/q4/q4_ukernel.h"

namespace vt::kernels {
namespace {

constexpr size_t kRows = 16;
constexpr size_t kBlockBytes = 18;
constexpr size_t kBlockElems = 32;
#ifndef VT_Q4_PREFETCH
#define VT_Q4_PREFETCH 8
#endif
constexpr size_t kPrefetchBlocks = VT_Q4_PREFETCH;

template <size_t MR, size_t G>
void Panel(size_t nc, size_t kb, const float* x, size_t ldx, const uint8_t* w, const float* bias,
           float* y, size_t ldy) {
  const __m512 levels = _mm512_setr_ps(-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7);
  for (size_t g = 0; g < nc; g += G) {
    __m512 acc[MR][G];
    for (size_t i = 0; i < MR; ++i)
      for (size_t r = 0; r < G; ++r) acc[i][r] = _mm512_setzero_ps();
    const uint8_t* blk = w + g * kBlockBytes;
    for (size_t b = 0; b < kb; ++b, blk += kRows * kBlockBytes) {
      __m512 xlo[MR], xhi[MR];
      for (size_t i = 0; i < MR; ++i) {
        xlo[i] = _mm512_loadu_ps(x + i * ldx + b * kBlockElems);
        xhi[i] = _mm512_loadu_ps(x + i * ldx + b * kBlockElems + 16);
      }
      for (size_t r = 0; r < G; ++r) {
        const uint8_t* p = blk + r * kBlockBytes;
        uint16_t h;
        std::memcpy(&h, p, 2);
        const __m512 table =
            _mm512_mul_ps(levels, _mm512_cvtph_ps(_mm256_set1_epi16(static_cast<short>(h))));
        const __m512i q = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2)));
        const __m512 wlo = _mm512_permutexvar_ps(q, table);
        const __m512 whi = _mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), table);
        for (size_t i = 0; i < MR; ++i) {
          acc[i][r] = _mm512_fmadd_ps(wlo, xlo[i], acc[i][r]);
          acc[i][r] = _mm512_fmadd_ps(whi, xhi[i], acc[i][r]);
        }
      }
    }
    const size_t gc = nc - g < G ? nc - g : G;
    for (size_t i = 0; i < MR; ++i)
      for (size_t r = 0; r < gc; ++r)
        y[i * ldy + g + r] =
            _mm512_reduce_add_ps(acc[i][r]) + (bias != nullptr ? bias[g + r] : 0.0f);
  }
}

// One activation row (decode), all 16 weight rows in one pass. Here the widening table is the
// plain levels q - 8 and the block scale is applied once per 32-element partial dot: the 16
// scales of an input block are gathered and converted together, so each row-block costs one
// broadcast instead of a scale conversion and a table multiply.
void PanelM1(size_t nc, size_t kb, const float* x, const uint8_t* w, const float* bias,
             float* y) {
  const __m512 levels = _mm512_setr_ps(-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7);
  const __m512i scale_offsets = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(static_cast<int>(kBlockBytes)));
  __m512 acc[kRows];
  for (size_t r = 0; r < kRows; ++r) acc[r] = _mm512_setzero_ps();
  const uint8_t* blk = w;
  for (size_t b = 0; b < kb; ++b, blk += kRows * kBlockBytes) {
    // The weights stream from DRAM once: prefetch kPrefetchBlocks input blocks ahead (past the
    // end of the panel this touches the next panel, which the driver reads next).
    for (size_t off = 0; off < kRows * kBlockBytes; off += 64)
      _mm_prefetch(reinterpret_cast<const char*>(blk + kPrefetchBlocks * kRows * kBlockBytes + off),
                   _MM_HINT_T0);
    const __m512 xlo = _mm512_loadu_ps(x + b * kBlockElems);
    const __m512 xhi = _mm512_loadu_ps(x + b * kBlockElems + 16);
    // Each gathered dword starts with a block's f16 scale; the low halves are kept.
    const __m512 scales = _mm512_cvtph_ps(
        _mm512_cvtepi32_epi16(_mm512_i32gather_epi32(scale_offsets, blk, 1)));
    for (size_t r = 0; r < kRows; ++r) {
      const __m512i q = _mm512_cvtepu8_epi32(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + r * kBlockBytes + 2)));
      __m512 t = _mm512_mul_ps(_mm512_permutexvar_ps(q, levels), xlo);
      t = _mm512_fmadd_ps(_mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), levels), xhi, t);
      const __m512 d = _mm512_permutexvar_ps(_mm512_set1_epi32(static_cast<int>(r)), scales);
      acc[r] = _mm512_fmadd_ps(t, d, acc[r]);
    }
  }
  for (size_t r = 0; r < nc; ++r)
    y[r] = _mm512_reduce_add_ps(acc[r]) + (bias != nullptr ? bias[r] : 0.0f);
}

}  // namespace

void gemm_q4_0_f32_8x16_avx512(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                               const uint8_t* w, const float* bias, float* y, size_t ldy) {
  switch (mr) {
    case 1: return PanelM1(nc, kb, x, w, bias, y);
    case 2: return Panel<2, 8>(nc, kb, x, ldx, w, bias, y, ldy);
    case 3: return Panel<3, 4>(nc, kb, x, ldx, w, bias, y, ldy);
    case 4: return Panel<4, 4>(nc, kb, x, ldx, w, bias, y, ldy);
    case 5: return Panel<5, 2>(nc, kb, x, ldx, w, bias, y, ldy);
    case 6: return Panel<6, 2>(nc, kb, x, ldx, w, bias, y, ldy);
    case 7: return Panel<7, 2>(nc, kb, x, ldx, w, bias, y, ldy);
    default: return Panel<8, 2>(nc, kb, x, ldx, w, bias, y, ldy);
  }
}

}  // namespace vt::kernels
