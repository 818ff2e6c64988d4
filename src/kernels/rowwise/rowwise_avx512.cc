// The AVX-512 row-wise rows (rowwise_ukernel.h): rowwise_simd_inl.h over 16-lane vectors,
// tails with masked (fault-free) loads and stores. Compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512dq -mfma; called only after run-time detection.
#include <immintrin.h>

// GCC 12 reports the undefined pass-through operands inside its own AVX-512 intrinsic headers
// (_mm512_reduce_add_ps) once these templates are inlined: a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "kernels/rowwise/rowwise_simd_inl.h"

namespace vt::kernels {
namespace {

struct Avx512 {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr size_t kLanes = 16;
  static V Zero() { return _mm512_setzero_ps(); }
  static V Set1(float x) { return _mm512_set1_ps(x); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Div(V a, V b) { return _mm512_div_ps(a, b); }
  static V Fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
  static V Max(V a, V b) { return _mm512_max_ps(a, b); }
  static V Min(V a, V b) { return _mm512_min_ps(a, b); }
  static V Abs(V a) { return _mm512_abs_ps(a); }
  static Mask LessThanZero(V a) { return _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_LT_OQ); }
  static Mask BelowMask(V a, float b) { return _mm512_cmp_ps_mask(a, _mm512_set1_ps(b), _CMP_LT_OQ); }
  static V Select(Mask m, V a, V b) { return _mm512_mask_blend_ps(m, b, a); }
  static Mask FirstN(size_t n) { return n >= 16 ? Mask(0xffff) : static_cast<Mask>((1u << n) - 1); }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static V LoadN(const float* p, size_t n) { return _mm512_maskz_loadu_ps(FirstN(n), p); }
  static void Store(float* p, V x) { _mm512_storeu_ps(p, x); }
  static void StoreN(float* p, V x, size_t n) { _mm512_mask_storeu_ps(p, FirstN(n), x); }
  static float ReduceAdd(V x) { return _mm512_reduce_add_ps(x); }
  static V Round(V x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V Pow2i(V k) {
    const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(k), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
  }
};

}  // namespace

void norm_rows_f32_f32_1x16_avx512(const NormRowsCall& c) { rowwise_simd::NormRows<Avx512>(c); }
void act_rows_f32_f32_1x16_avx512(const ActRowsCall& c) { rowwise_simd::ActRows<Avx512>(c); }
void rotary_rows_f32_f32_1x16_avx512(const RotaryRowsCall& c) {
  rowwise_simd::RotaryRows<Avx512>(c);
}

}  // namespace vt::kernels
