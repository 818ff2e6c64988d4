// gemm_q4_k_f32_8x16_avx512 (q4_ukernel.h). Compiled with -mavx512f -mavx512bw -mavx512vl
// -mavx512dq -mfma; called only after run-time detection.
//
// Per 144-byte super-block and sub-block j, a 16-entry table holds the exact weights
// (d * sc_j) * q - dmin * m_j for q = 0..15 (one fmsub: d*sc_j*q is exact in f32 and the
// subtraction rounds once, as the encoding's decoder does). The 32 bytes of a nibble group are
// zero-extended to dwords and vpermps looks the low nibbles (sub-block 2g) and high nibbles
// (sub-block 2g+1) up in their tables; the weights meet the f32 activations in FMAs, one
// 16-lane accumulator per (activation row, weight row).
#include <immintrin.h>

// GCC 12 reports the undefined pass-through operands inside its own AVX-512 intrinsic headers
// as maybe-uninitialized once these templates are inlined (a known false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <cstddef>
#include <cstring>

#include "kernels/q4/q4_ukernel.h"
#include "vtensor/layout/encoding.h"

namespace vt::kernels {
namespace {

constexpr size_t kRows = 16;
constexpr size_t kBlockBytes = sizeof(BlockQ4_K);
constexpr size_t kBlockElems = kQ4_KElems;

__m512 HalfBroadcast(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _mm512_cvtph_ps(_mm256_set1_epi16(static_cast<short>(h)));
}

template <size_t MR, size_t G>
void Panel(size_t nc, size_t kb, const float* x, size_t ldx, const uint8_t* w, const float* bias,
           float* y, size_t ldy) {
  const __m512 levels = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (size_t g = 0; g < nc; g += G) {
    __m512 acc[MR][G];
    for (size_t i = 0; i < MR; ++i)
      for (size_t r = 0; r < G; ++r) acc[i][r] = _mm512_setzero_ps();
    const uint8_t* blk = w + g * kBlockBytes;
    for (size_t b = 0; b < kb; ++b, blk += kRows * kBlockBytes) {
      for (size_t r = 0; r < G; ++r) {
        const uint8_t* p = blk + r * kBlockBytes;
        const __m512 d = HalfBroadcast(p + offsetof(BlockQ4_K, d));
        const __m512 dmin = HalfBroadcast(p + offsetof(BlockQ4_K, dmin));
        const uint8_t* scales = p + offsetof(BlockQ4_K, scales);
        const uint8_t* qs = p + offsetof(BlockQ4_K, qs);
        for (int grp = 0; grp < 4; ++grp) {
          __m512 table[2];
          for (int h = 0; h < 2; ++h) {
            uint8_t sc, m;
            Q4KScaleMin(scales, 2 * grp + h, &sc, &m);
            table[h] = _mm512_fmsub_ps(levels, _mm512_mul_ps(d, _mm512_set1_ps(sc)),
                                       _mm512_mul_ps(dmin, _mm512_set1_ps(m)));
          }
          const __m512i q0 =
              _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs + 32 * grp)));
          const __m512i q1 = _mm512_cvtepu8_epi32(
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs + 32 * grp + 16)));
          const __m512 wv[4] = {
              _mm512_permutexvar_ps(q0, table[0]), _mm512_permutexvar_ps(q1, table[0]),
              _mm512_permutexvar_ps(_mm512_srli_epi32(q0, 4), table[1]),
              _mm512_permutexvar_ps(_mm512_srli_epi32(q1, 4), table[1])};
          for (size_t i = 0; i < MR; ++i) {
            const float* xb = x + i * ldx + b * kBlockElems + 64 * grp;
            for (int v = 0; v < 4; ++v)
              acc[i][r] = _mm512_fmadd_ps(wv[v], _mm512_loadu_ps(xb + 16 * v), acc[i][r]);
          }
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

}  // namespace

void gemm_q4_k_f32_8x16_avx512(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                               const uint8_t* w, const float* bias, float* y, size_t ldy) {
  switch (mr) {
    case 1: return Panel<1, 16>(nc, kb, x, ldx, w, bias, y, ldy);
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
