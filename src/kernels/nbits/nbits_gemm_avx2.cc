// gemm_nbits4_f32_8x16_avx2 (nbits_ukernel.h). Compiled with -mavx2 -mfma; called only after
// run-time detection.
//
// The 16 code bytes of a row's 32-element chunk are split into low nibbles (the chunk's even
// elements, pair positions 0..15) and high nibbles (odd elements, positions 16..31), widened to
// four 8-lane dword vectors and decoded exactly as the twin decodes them, (u - zp) * scale (the
// subtraction is exact for integer zero points, then one rounding). They meet the pair-ordered
// f32 activations in FMAs: one 8-lane accumulator per (activation row, weight row), reduced at
// the end; the panel's rows are processed G at a time so MR * G accumulators and the decoded
// weights fit the 16 ymm registers.
#include <immintrin.h>

#include <cstdint>

#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {
namespace {

inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

template <size_t MR, size_t G>
void Panel(size_t nc, size_t kb, size_t bs, const float* x, size_t ldx, const NBitsPanel& w,
           const float* bias, float* y, size_t ldy) {
  const __m128i m0f = _mm_set1_epi8(0x0F);
  const size_t blob = bs / 2, chunks = bs / 32;
  for (size_t g = 0; g < nc; g += G) {
    __m256 acc[MR][G];
    for (size_t i = 0; i < MR; ++i)
      for (size_t r = 0; r < G; ++r) acc[i][r] = _mm256_setzero_ps();
    for (size_t b = 0; b < kb; ++b) {
      const uint8_t* blk = w.codes + b * kNBitsRows * blob;
      const float* xb = x + b * bs;
      for (size_t r = 0; r < G; ++r) {
        const __m256 zp = _mm256_set1_ps(NBitsZeroPoint(w, b, g + r));
        const __m256 sc = _mm256_set1_ps(w.scales[b * kNBitsRows + g + r]);
        const uint8_t* row = blk + (g + r) * blob;
        for (size_t c = 0; c < chunks; ++c) {
          const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + c * 16));
          const __m128i lo = _mm_and_si128(v, m0f);
          const __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), m0f);
          __m256 wv[4];
          const __m128i parts[4] = {lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)};
          for (int q = 0; q < 4; ++q)
            wv[q] = _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(parts[q])), zp), sc);
          for (size_t i = 0; i < MR; ++i) {
            const float* xc = xb + i * ldx + c * 32;
            for (int q = 0; q < 4; ++q)
              acc[i][r] = _mm256_fmadd_ps(wv[q], _mm256_loadu_ps(xc + 8 * q), acc[i][r]);
          }
        }
      }
    }
    const size_t gc = nc - g < G ? nc - g : G;
    for (size_t i = 0; i < MR; ++i)
      for (size_t r = 0; r < gc; ++r)
        y[i * ldy + g + r] = HorizontalSum(acc[i][r]) + (bias != nullptr ? bias[g + r] : 0.0f);
  }
}

}  // namespace

void gemm_nbits4_f32_8x16_avx2(size_t mr, size_t nc, size_t kb, size_t bs, const float* x,
                               size_t ldx, const NBitsPanel& w, const float* bias, float* y,
                               size_t ldy) {
  switch (mr) {
    case 1: return Panel<1, 8>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    case 2: return Panel<2, 4>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    case 3: return Panel<3, 2>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    case 4: return Panel<4, 2>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    default:
      // Rows 5..8: one weight row at a time (MR accumulators), in two halves of at most 4 rows.
      Panel<4, 2>(nc, kb, bs, x, ldx, w, bias, y, ldy);
      switch (mr - 4) {
        case 1: return Panel<1, 8>(nc, kb, bs, x + 4 * ldx, ldx, w, bias, y + 4 * ldy, ldy);
        case 2: return Panel<2, 4>(nc, kb, bs, x + 4 * ldx, ldx, w, bias, y + 4 * ldy, ldy);
        case 3: return Panel<3, 2>(nc, kb, bs, x + 4 * ldx, ldx, w, bias, y + 4 * ldy, ldy);
        default: return Panel<4, 2>(nc, kb, bs, x + 4 * ldx, ldx, w, bias, y + 4 * ldy, ldy);
      }
  }
}

}  // namespace vt::kernels
