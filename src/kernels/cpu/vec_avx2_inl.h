// 8-lane f32 vector traits for the *_avx2.cc files of the row kernel families (row
// normalization, GELU activations), the AVX2 + FMA counterpart of vec_avx512_inl.h (same
// operations, same contracts). Include only from a file compiled with -mavx2 -mfma.
//
// The namespace is anonymous on purpose (see vec_avx512_inl.h).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace vt::kernels {
namespace {

struct VecAvx2 {
  using V = __m256;
  static constexpr size_t kLanes = 8;

  static V Zero() { return _mm256_setzero_ps(); }
  static V Set1(float x) { return _mm256_set1_ps(x); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Div(V a, V b) { return _mm256_div_ps(a, b); }
  static V Fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Fnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }  // c - a * b
  static V Min(V a, V b) { return _mm256_min_ps(a, b); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V Abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  // Lanes where `sel` has its sign bit set take `neg`, the others `pos`.
  static V BlendSign(V sel, V neg, V pos) { return _mm256_blendv_ps(pos, neg, sel); }
  // 2^k for integral-valued k in [-126, 127].
  static V Pow2(V k) {
    const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
  }

  // Lane l of the mask is all ones for l < n.
  static __m256i FirstN(size_t n) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lanes);
  }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  // First n lanes from p (n < 8), the rest 0; never touches memory past p + n.
  static V LoadN(const float* p, size_t n) { return _mm256_maskload_ps(p, FirstN(n)); }
  static void Store(float* p, V x) { _mm256_storeu_ps(p, x); }
  static void StoreN(float* p, V x, size_t n) { _mm256_maskstore_ps(p, FirstN(n), x); }
  static float ReduceAdd(V x) {
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    const __m128 h = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
  }
};

}  // namespace
}  // namespace vt::kernels
