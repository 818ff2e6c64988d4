// nbits_quantize_q8_avx512 (nbits_ukernel.h): the q8 rows' activation quantizer on 16 lanes,
// reading logical order and writing pair-ordered blocks, so the driver needs no reordered f32
// copy of the activations. Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma;
// called only after run-time detection. Every step is the scalar definition's: the block
// maximum of |x| (exact), d = amax / 127 and r = 127 / amax (f32 divisions), q = x * r rounded
// to nearest even (vrndscaleps under the caller's MXCSR, as nearbyint), clamped to +-127.
#include <immintrin.h>

// GCC 12 reports the undefined pass-through operands inside its own AVX-512 intrinsic headers
// as (maybe-)uninitialized once these functions are inlined: a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <algorithm>
#include <cstring>

#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {
namespace {

// Logical elements [k0, k0 + 32) of a row with K valid columns; zeros past K.
inline void LoadChunk(const float* row, size_t k0, size_t K, __m512& lo, __m512& hi) {
  const size_t n = k0 < K ? std::min<size_t>(32, K - k0) : 0;
  const __mmask16 m0 = static_cast<__mmask16>(n >= 16 ? 0xFFFF : (1u << n) - 1);
  const __mmask16 m1 = static_cast<__mmask16>(n >= 32 ? 0xFFFF : n > 16 ? (1u << (n - 16)) - 1 : 0);
  lo = _mm512_maskz_loadu_ps(m0, row + k0);
  hi = _mm512_maskz_loadu_ps(m1, row + k0 + 16);
}

}  // namespace

void nbits_quantize_q8_avx512(size_t m, size_t K, size_t kb, size_t bs, const float* x,
                              size_t ldx, Q4Q8Block* xq, size_t ldxq) {
  const size_t chunks = bs / 32;
  const __m512 abs_mask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FFFFFFF));
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512 lim = _mm512_set1_ps(127.0f);
  for (size_t i = 0; i < m; ++i) {
    const float* row = x + i * ldx;
    for (size_t b = 0; b < kb; ++b) {
      __m512 vmax = _mm512_setzero_ps();
      for (size_t c = 0; c < chunks; ++c) {
        __m512 lo, hi;
        LoadChunk(row, (b * chunks + c) * 32, K, lo, hi);
        vmax = _mm512_max_ps(vmax, _mm512_max_ps(_mm512_and_ps(lo, abs_mask),
                                                 _mm512_and_ps(hi, abs_mask)));
      }
      const float amax = _mm512_reduce_max_ps(vmax);
      const float d = amax / 127.0f;
      const float inv = amax != 0.0f ? 127.0f / amax : 0.0f;
      const __m512 r = _mm512_set1_ps(inv);
      for (size_t c = 0; c < chunks; ++c) {
        Q4Q8Block& out = xq[i * ldxq + b * chunks + c];
        std::memset(&out, 0, sizeof(out));
        if (d == 0.0f) continue;
        __m512 lo, hi;
        LoadChunk(row, (b * chunks + c) * 32, K, lo, hi);
        auto quant = [&](__m512 v) {
          const __m512 q = _mm512_roundscale_ps(_mm512_mul_ps(v, r),
                                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
          return _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(q, -lim), lim));
        };
        const __m512i qlo = quant(lo), qhi = quant(hi);
        const __m512i qe = _mm512_permutex2var_epi32(qlo, even, qhi);
        const __m512i qo = _mm512_permutex2var_epi32(qlo, odd, qhi);
        _mm_store_si128(reinterpret_cast<__m128i*>(out.q), _mm512_cvtepi32_epi8(qe));
        _mm_store_si128(reinterpret_cast<__m128i*>(out.q + 16), _mm512_cvtepi32_epi8(qo));
        out.neg8sum[0] = -8 * _mm512_reduce_add_epi32(_mm512_add_epi32(qe, qo));
        out.d = d;
      }
    }
  }
}

}  // namespace vt::kernels
