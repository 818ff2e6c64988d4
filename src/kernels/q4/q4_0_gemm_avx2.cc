// gemm_q4_0_f32_8x8_avx2 (q4_ukernel.h). Compiled with -mavx2 -mfma -mf16c; called only after
// run-time detection.
//
// Each 18-byte block is widened in registers to 32 exact f32 weights: the nibble bytes are
// zero-extended to dwords, masked / shifted, converted, and fma(q, d, -8d) gives d * (q - 8)
// exactly (q*d is exact and the result is representable, so the single rounding is exact).
// The weights meet the f32 activations in FMAs; one 8-lane accumulator per (activation row,
// weight row). Rows of the panel are processed G at a time so that MR * G accumulators fit
// the 16 ymm registers.
#include <immintrin.h>

#include <cstring>

#include "kernels/q4/q4_ukernel.h"

namespace vt::kernels {
namespace {

constexpr size_t kRows = 8;
constexpr size_t kBlockBytes = 18;
constexpr size_t kBlockElems = 32;

float ReduceAdd(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

template <size_t MR, size_t G>
void Panel(size_t nc, size_t kb, const float* x, size_t ldx, const uint8_t* w, const float* bias,
           float* y, size_t ldy) {
  const __m256i mask = _mm256_set1_epi32(15);
  for (size_t g = 0; g < nc; g += G) {
    __m256 acc[MR][G];
    for (size_t i = 0; i < MR; ++i)
      for (size_t r = 0; r < G; ++r) acc[i][r] = _mm256_setzero_ps();
    const uint8_t* blk = w + g * kBlockBytes;
    for (size_t b = 0; b < kb; ++b, blk += kRows * kBlockBytes) {
      for (size_t r = 0; r < G; ++r) {
        const uint8_t* p = blk + r * kBlockBytes;
        uint16_t h;
        std::memcpy(&h, p, 2);
        const __m256 d = _mm256_cvtph_ps(_mm_set1_epi16(static_cast<short>(h)));
        const __m256 m8d = _mm256_mul_ps(d, _mm256_set1_ps(-8.0f));
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2));
        const __m256i q0 = _mm256_cvtepu8_epi32(bytes);
        const __m256i q1 = _mm256_cvtepu8_epi32(_mm_srli_si128(bytes, 8));
        __m256 wv[4];
        wv[0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_and_si256(q0, mask)), d, m8d);
        wv[1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_and_si256(q1, mask)), d, m8d);
        wv[2] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(q0, 4)), d, m8d);
        wv[3] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(q1, 4)), d, m8d);
        for (size_t i = 0; i < MR; ++i) {
          const float* xb = x + i * ldx + b * kBlockElems;
          for (size_t v = 0; v < 4; ++v)
            acc[i][r] = _mm256_fmadd_ps(wv[v], _mm256_loadu_ps(xb + 8 * v), acc[i][r]);
        }
      }
    }
    const size_t gc = nc - g < G ? nc - g : G;
    for (size_t i = 0; i < MR; ++i)
      for (size_t r = 0; r < gc; ++r)
        y[i * ldy + g + r] = ReduceAdd(acc[i][r]) + (bias != nullptr ? bias[g + r] : 0.0f);
  }
}

}  // namespace

void gemm_q4_0_f32_8x8_avx2(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                            const uint8_t* w, const float* bias, float* y, size_t ldy) {
  switch (mr) {
    case 1: return Panel<1, 8>(nc, kb, x, ldx, w, bias, y, ldy);
    case 2: return Panel<2, 4>(nc, kb, x, ldx, w, bias, y, ldy);
    case 3: return Panel<3, 2>(nc, kb, x, ldx, w, bias, y, ldy);
    case 4: return Panel<4, 2>(nc, kb, x, ldx, w, bias, y, ldy);
    case 5: return Panel<5, 1>(nc, kb, x, ldx, w, bias, y, ldy);
    case 6: return Panel<6, 1>(nc, kb, x, ldx, w, bias, y, ldy);
    case 7: return Panel<7, 1>(nc, kb, x, ldx, w, bias, y, ldy);
    default: return Panel<8, 1>(nc, kb, x, ldx, w, bias, y, ldy);
  }
}

}  // namespace vt::kernels
