// gemm_nbits4_q8_8x16_avx2 (nbits_ukernel.h, q8 rows). Compiled with -mavx2 -mfma (the file
// name ends in _avx2.cc); called only after run-time detection.
//
// For one weight row and one 32-element chunk, the low nibbles (even elements) and the high
// nibbles (odd elements) of its 16 code bytes form one 32-byte vector in the activations' pair
// order, so vpmaddubsw (u8 codes x s8 activations, no saturation: |pair sum| <= 2 * 15 * 127)
// and vpmaddwd against ones give 8 exact int32 partial dots; a vphaddd tree turns 8 rows'
// partials into one vector of 8 row dots. The zero-point correction, the scales and the f32
// accumulation are then taken lane by lane in exactly the twin's order (vfnmadd is std::fma),
// so the row is bit-identical to NBitsQ8GemmReference.
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/dispatch_mr.h"

#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {
namespace {

// The 16 zero points of block b in row order, rows [8h, 8h + 8), as floats.
inline __m256 ZeroPoints8(const NBitsPanel& w, size_t b, size_t h) {
  switch (w.zp_kind) {
    case NBitsZeroPoints::kNone: return _mm256_set1_ps(8.0f);
    case NBitsZeroPoints::kU4: {
      const __m256i bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(
          reinterpret_cast<const __m128i*>(w.zp_u4 + (b / 2) * kNBitsRows + 8 * h)));
      const __m256i z = (b & 1) != 0 ? _mm256_srli_epi32(bytes, 4)
                                     : _mm256_and_si256(bytes, _mm256_set1_epi32(15));
      return _mm256_cvtepi32_ps(z);
    }
    case NBitsZeroPoints::kF32: return _mm256_loadu_ps(w.zp_f32 + b * kNBitsRows + 8 * h);
  }
  return _mm256_set1_ps(8.0f);
}

// 8 int32 partial dots of one row's chunk against the activations `a` (32 bytes, pair order).
inline __m256i RowPartials(const uint8_t* codes, __m256i a) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes));
  const __m128i m0f = _mm_set1_epi8(0x0F);
  const __m256i u = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_and_si128(v, m0f)),
                                            _mm_and_si128(_mm_srli_epi16(v, 4), m0f), 1);
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, a), _mm256_set1_epi16(1));
}

// Dots of 8 rows from their partials: lane r = sum of p[r]'s 8 lanes (exact int32).
inline __m256i Reduce8(const __m256i (&p)[8]) {
  const __m256i s01 = _mm256_hadd_epi32(p[0], p[1]), s23 = _mm256_hadd_epi32(p[2], p[3]);
  const __m256i s45 = _mm256_hadd_epi32(p[4], p[5]), s67 = _mm256_hadd_epi32(p[6], p[7]);
  const __m256i s0123 = _mm256_hadd_epi32(s01, s23), s4567 = _mm256_hadd_epi32(s45, s67);
  // s0123 lanes: r0 r1 r2 r3 (low half) | r0 r1 r2 r3 (high half), likewise s4567.
  const __m256i lo = _mm256_permute2x128_si256(s0123, s4567, 0x20);
  const __m256i hi = _mm256_permute2x128_si256(s0123, s4567, 0x31);
  return _mm256_add_epi32(lo, hi);
}

template <size_t MR>
void PanelQ8(size_t nc, size_t kb, size_t bs, const Q4Q8Block* xq, size_t ldxq,
             const NBitsPanel& w, const float* bias, float* y, size_t ldy) {
  const size_t blob = bs / 2, chunks = bs / 32;
  for (size_t h = 0; h * 8 < nc; ++h) {  // rows [8h, 8h + 8) of the panel
    __m256 acc[MR];
    for (size_t i = 0; i < MR; ++i) acc[i] = _mm256_setzero_ps();
    for (size_t b = 0; b < kb; ++b) {
      const uint8_t* blk = w.codes + (b * kNBitsRows + 8 * h) * blob;
      const __m256 sw = _mm256_loadu_ps(w.scales + b * kNBitsRows + 8 * h);
      const __m256 zp = ZeroPoints8(w, b, h);
      for (size_t c = 0; c < chunks; ++c) {
        for (size_t i = 0; i < MR; ++i) {
          const Q4Q8Block& xb = xq[i * ldxq + b * chunks + c];
          const __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(xb.q));
          __m256i p[8];
          for (size_t r = 0; r < 8; ++r) p[r] = RowPartials(blk + r * blob + c * 16, a);
          const __m256i dot = Reduce8(p);
          // Exact: neg8sum[0] is -8 times the block's sum of q (nbits_ukernel.h).
          const int32_t q_sum = -xb.neg8sum[0] / 8;
          const auto sum = static_cast<float>(q_sum);
          const __m256 v = _mm256_fnmadd_ps(zp, _mm256_set1_ps(sum), _mm256_cvtepi32_ps(dot));
          const __m256 s = _mm256_mul_ps(sw, _mm256_set1_ps(xb.d));
          acc[i] = _mm256_add_ps(acc[i], _mm256_mul_ps(v, s));
        }
      }
    }
    const size_t hc = nc - 8 * h < 8 ? nc - 8 * h : 8;
    for (size_t i = 0; i < MR; ++i) {
      alignas(32) float out[8];
      _mm256_store_ps(out, acc[i]);
      for (size_t r = 0; r < hc; ++r)
        y[i * ldy + 8 * h + r] = out[r] + (bias != nullptr ? bias[8 * h + r] : 0.0f);
    }
  }
}

}  // namespace

void gemm_nbits4_q8_8x16_avx2(size_t mr, size_t nc, size_t kb, size_t bs, const Q4Q8Block* xq,
                              size_t ldxq, const NBitsPanel& w, const float* bias, float* y,
                              size_t ldy) {
  DispatchMr<kNBitsMaxMr>(mr, [&](auto m) {
    PanelQ8<decltype(m)::value>(nc, kb, bs, xq, ldxq, w, bias, y, ldy);
  });
}

}  // namespace vt::kernels
