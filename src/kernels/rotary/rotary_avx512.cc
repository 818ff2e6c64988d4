// The AVX-512 rotary row (rotary_ukernel.h): rotary_simd_inl.h over 16-lane vectors, tails with
// masked (fault-free) loads and stores. Called only after run-time detection.
#include <immintrin.h>

#include "kernels/rotary/rotary_simd_inl.h"

namespace vt::kernels {
namespace {

struct Avx512 {
  using V = __m512;
  static constexpr size_t kLanes = 16;
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
  static __mmask16 FirstN(size_t n) {
    return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1);
  }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static V LoadN(const float* p, size_t n) { return _mm512_maskz_loadu_ps(FirstN(n), p); }
  static void Store(float* p, V x) { _mm512_storeu_ps(p, x); }
  static void StoreN(float* p, V x, size_t n) { _mm512_mask_storeu_ps(p, FirstN(n), x); }
};

}  // namespace

void rotary_f32_f32_1x16_avx512(const RotaryRowsCall& c) { rotary_simd::RotaryRows<Avx512>(c); }

}  // namespace vt::kernels
