// gemm_nbits4_q8_8x16_avx512vnni (nbits_ukernel.h, q8 rows). Compiled with -mavx512f
// -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -ffp-contract=off; called only after run-time
// detection.
//
// A row's 16 code bytes of one 32-element chunk fill one 128-bit lane, so a zmm holds 4 rows
// (with bs = 32 the 4 rows are 64 contiguous bytes of the panel). Low nibbles are the chunk's
// even elements, high nibbles its odd ones, matching the activations' pair order: two vpdpbusd
// (u8 codes x s8 activations) give each lane 4 partial dots, which a transposing add tree turns
// into one zmm of 16 exact row dots (dword 4 l + g = row 4 g + l). The zero-point correction
// zp * sum q, the scales and the f32 accumulation follow the twin's roundings exactly.
#include <immintrin.h>

// GCC 12 reports the undefined pass-through operands inside its own AVX-512 intrinsic headers
// as (maybe-)uninitialized once these templates are inlined: a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <cstdint>

#include "kernels/cpu/dispatch_mr.h"

#include "kernels/nbits/nbits_avx512_inl.h"
#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {
namespace {

using nbits_avx512::kPrefetchL1Bytes;
using nbits_avx512::kPrefetchL2Bytes;
using nbits_avx512::ZeroPoints;

// Rows 4g..4g+3 of chunk c of block `blk` (the block's 16 rows of `blob` bytes each).
inline __m512i LoadGroup(const uint8_t* blk, size_t blob, size_t g, size_t c) {
  const uint8_t* p = blk + 4 * g * blob + c * 16;
  if (blob == 16) return _mm512_loadu_si512(p);
  __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + blob)), 1);
  v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * blob)), 2);
  return _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 3 * blob)), 3);
}

template <size_t MR>
void PanelQ8(size_t nc, size_t kb, size_t bs, const Q4Q8Block* xq, size_t ldxq,
             const NBitsPanel& w, const float* bias, float* y, size_t ldy) {
  const __m512i m0f = _mm512_set1_epi8(0x0F);
  const __m512i transpose =
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const size_t blob = bs / 2, chunks = bs / 32, block_bytes = kNBitsRows * blob;
  __m512 acc[MR];  // dword 4 l + g: row 4 g + l
  for (size_t i = 0; i < MR; ++i) acc[i] = _mm512_setzero_ps();
  const uintptr_t c0 = reinterpret_cast<uintptr_t>(w.codes);
  uintptr_t pf1 = (c0 + kPrefetchL1Bytes) & ~uintptr_t{63};
  uintptr_t pf2 = (c0 + kPrefetchL2Bytes) & ~uintptr_t{63};
  for (size_t b = 0; b < kb; ++b) {
    const uint8_t* blk = w.codes + b * block_bytes;
    const uintptr_t end = reinterpret_cast<uintptr_t>(blk) + block_bytes;
    for (; pf1 < end + kPrefetchL1Bytes; pf1 += 64)
      _mm_prefetch(reinterpret_cast<const char*>(pf1), _MM_HINT_T0);
    for (; pf2 < end + kPrefetchL2Bytes; pf2 += 64)
      _mm_prefetch(reinterpret_cast<const char*>(pf2), _MM_HINT_T2);
    // Scales and zero points in accumulator order.
    const __m512 sw = _mm512_permutexvar_ps(transpose, _mm512_loadu_ps(w.scales + b * kNBitsRows));
    const __m512 zp = _mm512_permutexvar_ps(transpose, ZeroPoints(w, b));
    for (size_t c = 0; c < chunks; ++c) {
      __m512i lo[4], hi[4];
      for (size_t g = 0; g < 4; ++g) {
        const __m512i v = LoadGroup(blk, blob, g, c);
        lo[g] = _mm512_and_si512(v, m0f);
        hi[g] = _mm512_and_si512(_mm512_srli_epi16(v, 4), m0f);
      }
      for (size_t i = 0; i < MR; ++i) {
        const Q4Q8Block& xb = xq[i * ldxq + b * chunks + c];
        const __m512i xe =
            _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(xb.q)));
        const __m512i xo =
            _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(xb.q + 16)));
        __m512i d[4];
        for (size_t g = 0; g < 4; ++g)
          d[g] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), lo[g], xe),
                                     hi[g], xo);
        const __m512i t01 = _mm512_add_epi32(_mm512_unpacklo_epi32(d[0], d[1]),
                                             _mm512_unpackhi_epi32(d[0], d[1]));
        const __m512i t23 = _mm512_add_epi32(_mm512_unpacklo_epi32(d[2], d[3]),
                                             _mm512_unpackhi_epi32(d[2], d[3]));
        const __m512i dot = _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23),
                                             _mm512_unpackhi_epi64(t01, t23));
        // Exact: neg8sum[0] is -8 times the block's sum of q (nbits_ukernel.h).
        const int32_t q_sum = -xb.neg8sum[0] / 8;
        const auto sum = static_cast<float>(q_sum);
        const __m512 v = _mm512_fnmadd_ps(zp, _mm512_set1_ps(sum), _mm512_cvtepi32_ps(dot));
        const __m512 s = _mm512_mul_ps(sw, _mm512_set1_ps(xb.d));
        acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(v, s));
      }
    }
  }
  for (size_t i = 0; i < MR; ++i) {
    alignas(64) float p[16];
    _mm512_store_ps(p, acc[i]);
    for (size_t r = 0; r < nc; ++r)
      y[i * ldy + r] = p[4 * (r % 4) + r / 4] + (bias != nullptr ? bias[r] : 0.0f);
  }
}

}  // namespace

void gemm_nbits4_q8_8x16_avx512vnni(size_t mr, size_t nc, size_t kb, size_t bs,
                                    const Q4Q8Block* xq, size_t ldxq, const NBitsPanel& w,
                                    const float* bias, float* y, size_t ldy) {
  DispatchMr<kNBitsMaxMr>(mr, [&](auto m) {
    PanelQ8<decltype(m)::value>(nc, kb, bs, xq, ldxq, w, bias, y, ldy);
  });
}

}  // namespace vt::kernels
