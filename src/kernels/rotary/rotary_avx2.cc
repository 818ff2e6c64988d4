// The AVX2 rotary row (rotary_ukernel.h): rotary_simd_inl.h over 8-lane vectors, tails with
// vmaskmovps (fault-free) loads and stores. Called only after run-time detection.
#include <immintrin.h>

#include "kernels/rotary/rotary_simd_inl.h"

namespace vt::kernels {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr size_t kLanes = 8;
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Fnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
  static __m256i LaneMask(size_t n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n < 8 ? n : 8)), idx);
  }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static V LoadN(const float* p, size_t n) { return _mm256_maskload_ps(p, LaneMask(n)); }
  static void Store(float* p, V x) { _mm256_storeu_ps(p, x); }
  static void StoreN(float* p, V x, size_t n) { _mm256_maskstore_ps(p, LaneMask(n), x); }
};

}  // namespace

void rotary_f32_f32_1x8_avx2(const RotaryRowsCall& c) { rotary_simd::RotaryRows<Avx2>(c); }

}  // namespace vt::kernels
