// The AVX2 row-wise rows (rowwise_ukernel.h): rowwise_simd_inl.h over 8-lane vectors, tails
// with vmaskmovps (fault-free) loads and stores. Compiled with -mavx2 -mfma; called only after
// run-time detection.
#include <immintrin.h>

#include "kernels/rowwise/rowwise_simd_inl.h"

namespace vt::kernels {
namespace {

struct Avx2 {
  using V = __m256;
  using Mask = __m256;  // all-ones lanes
  static constexpr size_t kLanes = 8;
  static V Zero() { return _mm256_setzero_ps(); }
  static V Set1(float x) { return _mm256_set1_ps(x); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Div(V a, V b) { return _mm256_div_ps(a, b); }
  static V Fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Fnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V Min(V a, V b) { return _mm256_min_ps(a, b); }
  static V Abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  static Mask LessThanZero(V a) { return _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_LT_OQ); }
  static Mask BelowMask(V a, float b) { return _mm256_cmp_ps(a, _mm256_set1_ps(b), _CMP_LT_OQ); }
  static V Select(Mask m, V a, V b) { return _mm256_blendv_ps(b, a, m); }
  static __m256i LaneMask(size_t n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n < 8 ? n : 8)), idx);
  }
  static Mask FirstN(size_t n) { return _mm256_castsi256_ps(LaneMask(n)); }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static V LoadN(const float* p, size_t n) { return _mm256_maskload_ps(p, LaneMask(n)); }
  static void Store(float* p, V x) { _mm256_storeu_ps(p, x); }
  static void StoreN(float* p, V x, size_t n) { _mm256_maskstore_ps(p, LaneMask(n), x); }
  static float ReduceAdd(V x) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static V Round(V x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V Pow2i(V k) {
    const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
  }
};

}  // namespace

void norm_rows_f32_f32_1x8_avx2(const NormRowsCall& c) { rowwise_simd::NormRows<Avx2>(c); }
void act_rows_f32_f32_1x8_avx2(const ActRowsCall& c) { rowwise_simd::ActRows<Avx2>(c); }
void rotary_rows_f32_f32_1x8_avx2(const RotaryRowsCall& c) { rowwise_simd::RotaryRows<Avx2>(c); }

}  // namespace vt::kernels
