// 16-lane f32 vector traits for the *_avx512.cc files of the row kernel families (row
// normalization, GELU activations): the operations their shared templates (<family>_simd_inl.h)
// are written in. Include only from a file compiled with the AVX-512 flags (CMakeLists.txt).
//
// The namespace is anonymous on purpose: an inline function shared by an AVX-512 and an AVX2
// file could be emitted with AVX-512 instructions and then picked by the linker for both.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace vt::kernels {
namespace {

struct VecAvx512 {
  using V = __m512;
  static constexpr size_t kLanes = 16;

  static V Zero() { return _mm512_setzero_ps(); }
  static V Set1(float x) { return _mm512_set1_ps(x); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Div(V a, V b) { return _mm512_div_ps(a, b); }
  static V Fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }  // c - a * b
  static V Min(V a, V b) { return _mm512_min_ps(a, b); }
  static V Max(V a, V b) { return _mm512_max_ps(a, b); }
  static V Abs(V a) { return _mm512_abs_ps(a); }
  // Lanes where `sel` has its sign bit set take `neg`, the others `pos`.
  static V BlendSign(V sel, V neg, V pos) {
    const __mmask16 m = _mm512_movepi32_mask(_mm512_castps_si512(sel));
    return _mm512_mask_blend_ps(m, pos, neg);
  }
  // 2^k for integral-valued k in [-126, 127].
  static V Pow2(V k) {
    const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(k), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
  }

  static __mmask16 FirstN(size_t n) {
    return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1);
  }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  // First n lanes from p (n < 16), the rest 0; never touches memory past p + n.
  static V LoadN(const float* p, size_t n) { return _mm512_maskz_loadu_ps(FirstN(n), p); }
  static void Store(float* p, V x) { _mm512_storeu_ps(p, x); }
  static void StoreN(float* p, V x, size_t n) { _mm512_mask_storeu_ps(p, FirstN(n), x); }
  static float ReduceAdd(V x) { return _mm512_reduce_add_ps(x); }
};

}  // namespace
}  // namespace vt::kernels
