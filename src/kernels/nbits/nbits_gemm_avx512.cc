// gemm_nbits4_f32_8x16_avx512 (nbits_ukernel.h). Compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512dq -mfma; called only after run-time detection.
//
// Per (row, block) a 16-entry table holds the decoded weights (u - zp) * scale for u = 0..15
// (exactly the twin's decode). The 16 code bytes of a 32-element chunk are zero-extended to
// dwords; vpermps looks up the low nibble (the chunk's even elements) and, after a 4-bit
// shift, the high nibble (the odd elements); vpermps reads only the low 4 index bits, so no
// mask is needed. The activations arrive in pair order, so the even / odd halves are plain
// loads. One 16-lane accumulator per (activation row, weight row), reduced at the end; the
// panel's rows are processed G at a time so MR * G accumulators fit the 32 zmm registers.
#include <immintrin.h>

// GCC 12 reports the undefined pass-through operands inside its own AVX-512 intrinsic headers
// (_mm512_reduce_add_ps) once these templates are inlined: a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <cstdint>

#include "kernels/nbits/nbits_avx512_inl.h"
#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {
namespace {

using nbits_avx512::kPrefetchL1Bytes;
using nbits_avx512::kPrefetchL2Bytes;
using nbits_avx512::ZeroPoints;

template <size_t MR, size_t G>
void Panel(size_t nc, size_t kb, size_t bs, const float* x, size_t ldx, const NBitsPanel& w,
           const float* bias, float* y, size_t ldy) {
  const __m512 levels = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const size_t blob = bs / 2, chunks = bs / 32;
  const uintptr_t c0 = reinterpret_cast<uintptr_t>(w.codes);
  const uintptr_t s0 = reinterpret_cast<uintptr_t>(w.scales);
  const uintptr_t block_bytes = kNBitsRows * blob;
  // Next line to prefetch in each stream (past the panel's end this touches the next panel,
  // which the driver reads next; prefetches never fault).
  uintptr_t pc1 = (c0 + kPrefetchL1Bytes) & ~uintptr_t{63};
  uintptr_t pc2 = (c0 + kPrefetchL2Bytes) & ~uintptr_t{63};
  const uintptr_t scale_ahead = kPrefetchL1Bytes / block_bytes * kNBitsRows * sizeof(float);
  uintptr_t ps = (s0 + scale_ahead) & ~uintptr_t{63};
  for (size_t g = 0; g < nc; g += G) {
    __m512 acc[MR][G];
    for (size_t i = 0; i < MR; ++i)
      for (size_t r = 0; r < G; ++r) acc[i][r] = _mm512_setzero_ps();
    for (size_t b = 0; b < kb; ++b) {
      const uint8_t* blk = w.codes + b * kNBitsRows * blob;
      if (g == 0) {
        const uintptr_t end = reinterpret_cast<uintptr_t>(blk) + block_bytes;
        for (; pc1 < end + kPrefetchL1Bytes; pc1 += 64)
          _mm_prefetch(reinterpret_cast<const char*>(pc1), _MM_HINT_T0);
        for (; pc2 < end + kPrefetchL2Bytes; pc2 += 64)
          _mm_prefetch(reinterpret_cast<const char*>(pc2), _MM_HINT_T2);
        const uintptr_t send = s0 + (b + 1) * kNBitsRows * sizeof(float);
        for (; ps < send + scale_ahead; ps += 64)
          _mm_prefetch(reinterpret_cast<const char*>(ps), _MM_HINT_T0);
      }
      alignas(64) float zp[kNBitsRows];
      _mm512_store_ps(zp, ZeroPoints(w, b));
      const float* sc = w.scales + b * kNBitsRows;
      const uint8_t* rows = blk + g * blob;
      const float* xb = x + b * bs;
      for (size_t r = 0; r < G; ++r, rows += blob) {
        const __m512 table = _mm512_mul_ps(_mm512_sub_ps(levels, _mm512_set1_ps(zp[g + r])),
                                           _mm512_set1_ps(sc[g + r]));
        for (size_t c = 0; c < chunks; ++c) {
          const __m512i q = _mm512_cvtepu8_epi32(
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows + c * 16)));
          const __m512 we = _mm512_permutexvar_ps(q, table);
          const __m512 wo = _mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), table);
          for (size_t i = 0; i < MR; ++i) {
            acc[i][r] = _mm512_fmadd_ps(we, _mm512_loadu_ps(xb + i * ldx + c * 32), acc[i][r]);
            acc[i][r] = _mm512_fmadd_ps(wo, _mm512_loadu_ps(xb + i * ldx + c * 32 + 16), acc[i][r]);
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

void gemm_nbits4_f32_8x16_avx512(size_t mr, size_t nc, size_t kb, size_t bs, const float* x,
                                 size_t ldx, const NBitsPanel& w, const float* bias, float* y,
                                 size_t ldy) {
  switch (mr) {
    case 1: return Panel<1, 16>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    case 2: return Panel<2, 8>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    case 3: return Panel<3, 4>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    case 4: return Panel<4, 4>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    case 5: return Panel<5, 2>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    case 6: return Panel<6, 2>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    case 7: return Panel<7, 2>(nc, kb, bs, x, ldx, w, bias, y, ldy);
    default: return Panel<8, 2>(nc, kb, bs, x, ldx, w, bias, y, ldy);
  }
}

}  // namespace vt::kernels
