// The sequential-read bandwidth floor the decode benchmarks compare against (a
// STREAM-like read of the same bytes): 64-bit sums in four zmm over
// aligned 64-byte loads with prefetcht0 2 KiB ahead, as the decode kernels prefetch, so the
// floor is the best a lone core reads. Header-only, for benchmark binaries (vtensor-kbench,
// vt_q4_gemm_bench); call only where __builtin_cpu_supports("avx512f").
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

// GCC 12 flags the undefined pass-through operand inside its own _mm512_reduce_add_epi64.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace vt::kernels {

// Sum of the n 64-bit words at p (64-byte aligned).
__attribute__((target("avx512f"))) inline uint64_t ReadFloorSumAvx512(const uint64_t* p,
                                                                      size_t n) {
  __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int line = 0; line < 4; ++line)
      _mm_prefetch(reinterpret_cast<const char*>(p + i) + 2048 + 64 * line, _MM_HINT_T0);
    s0 = _mm512_add_epi64(s0, _mm512_load_si512(p + i));
    s1 = _mm512_add_epi64(s1, _mm512_load_si512(p + i + 8));
    s2 = _mm512_add_epi64(s2, _mm512_load_si512(p + i + 16));
    s3 = _mm512_add_epi64(s3, _mm512_load_si512(p + i + 24));
  }
  uint64_t s = _mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(s0, s1),
                                                        _mm512_add_epi64(s2, s3)));
  for (; i < n; ++i) s += p[i];
  return s;
}

}  // namespace vt::kernels

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
