// Helpers shared by the AVX-512 MatMulNBits rows (nbits_gemm_avx512.cc and
// nbits_gemm_avx512vnni.cc). Included only by files compiled with at least -mavx512f
// -mavx512bw -mavx512vl -mavx512dq: each including file gets its own inline copy under its own
// flags, and is only called after run-time CPU detection.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels::nbits_avx512 {

// Software prefetch distances in bytes ahead in the codes stream: one prefetch per 64-byte
// line into L1 and, further ahead, into L2, so that enough lines are in flight while the
// kernel's vector work holds back the out-of-order window (the q4_0 VNNI row's finding,
// q4_0_gemm_avx512vnni.cc).
constexpr uintptr_t kPrefetchL1Bytes = 2048;
constexpr uintptr_t kPrefetchL2Bytes = 12288;

// The 16 zero points of block b of a panel in row order, as floats.
inline __m512 ZeroPoints(const NBitsPanel& w, size_t b) {
  switch (w.zp_kind) {
    case NBitsZeroPoints::kNone: return _mm512_set1_ps(8.0f);
    case NBitsZeroPoints::kU4: {
      const __m512i bytes = _mm512_cvtepu8_epi32(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.zp_u4 + (b / 2) * kNBitsRows)));
      const __m512i z = (b & 1) != 0 ? _mm512_srli_epi32(bytes, 4)
                                     : _mm512_and_si512(bytes, _mm512_set1_epi32(15));
      return _mm512_cvtepi32_ps(z);
    }
    case NBitsZeroPoints::kF32: return _mm512_loadu_ps(w.zp_f32 + b * kNBitsRows);
  }
  return _mm512_set1_ps(8.0f);
}

}  // namespace vt::kernels::nbits_avx512
