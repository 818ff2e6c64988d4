// AVX-512F activation epilogue (contract in f32_conv_act.h). This file alone is compiled with
// AVX-512 flags; it is only called after run-time CPU detection.
//
// max_ps(c, v) is (c > v ? c : v) and min_ps(c, v) is (c < v ? c : v): with the constant first
// a NaN v comes out unchanged, exactly like the scalar twin's comparisons. The multiply-adds
// are fused (one rounding), so results may differ from the twin by 1 ulp.
#include <immintrin.h>

#include "kernels/conv/f32_conv_act.h"

namespace vt::kernels {
namespace {

template <F32ConvAct kAct, bool kAffine>
__attribute__((always_inline)) inline __m512 Step(__m512 v, __m512 p0, __m512 p1, __m512 s,
                                                  __m512 t) {
  const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
  if constexpr (kAct == F32ConvAct::kClamp) {
    v = _mm512_min_ps(p1, _mm512_max_ps(p0, v));
  } else if constexpr (kAct == F32ConvAct::kLeakyRelu) {
    v = _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), v, p0);
  } else if constexpr (kAct == F32ConvAct::kHardSigmoid) {
    v = _mm512_min_ps(one, _mm512_max_ps(zero, _mm512_fmadd_ps(p0, v, p1)));
  } else if constexpr (kAct == F32ConvAct::kHardSwish) {
    const __m512 h = _mm512_fmadd_ps(_mm512_set1_ps(1.0f / 6.0f), v, _mm512_set1_ps(0.5f));
    v = _mm512_mul_ps(v, _mm512_min_ps(one, _mm512_max_ps(zero, h)));
  }
  if constexpr (kAffine) v = _mm512_fmadd_ps(v, s, t);
  return v;
}

template <F32ConvAct kAct, bool kAffine>
void Run(const F32ConvActParams& p, float* y, size_t n) {
  const __m512 p0 = _mm512_set1_ps(p.p0), p1 = _mm512_set1_ps(p.p1);
  const __m512 s = _mm512_set1_ps(p.scale), t = _mm512_set1_ps(p.shift);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 a = Step<kAct, kAffine>(_mm512_loadu_ps(y + i), p0, p1, s, t);
    const __m512 b = Step<kAct, kAffine>(_mm512_loadu_ps(y + i + 16), p0, p1, s, t);
    const __m512 c = Step<kAct, kAffine>(_mm512_loadu_ps(y + i + 32), p0, p1, s, t);
    const __m512 d = Step<kAct, kAffine>(_mm512_loadu_ps(y + i + 48), p0, p1, s, t);
    _mm512_storeu_ps(y + i, a);
    _mm512_storeu_ps(y + i + 16, b);
    _mm512_storeu_ps(y + i + 32, c);
    _mm512_storeu_ps(y + i + 48, d);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1u);
    const __m512 v = Step<kAct, kAffine>(_mm512_maskz_loadu_ps(m, y + i), p0, p1, s, t);
    _mm512_mask_storeu_ps(y + i, m, v);
  }
}

template <bool kAffine>
void Dispatch(const F32ConvActParams& p, float* y, size_t n) {
  switch (p.act) {
    case F32ConvAct::kIdentity: return Run<F32ConvAct::kIdentity, kAffine>(p, y, n);
    case F32ConvAct::kClamp: return Run<F32ConvAct::kClamp, kAffine>(p, y, n);
    case F32ConvAct::kLeakyRelu: return Run<F32ConvAct::kLeakyRelu, kAffine>(p, y, n);
    case F32ConvAct::kHardSigmoid: return Run<F32ConvAct::kHardSigmoid, kAffine>(p, y, n);
    case F32ConvAct::kHardSwish: return Run<F32ConvAct::kHardSwish, kAffine>(p, y, n);
  }
}

}  // namespace

void f32_conv_act_avx512(const F32ConvActParams* p, float* y, size_t n) {
  if (p->affine) Dispatch<true>(*p, y, n);
  else Dispatch<false>(*p, y, n);
}

}  // namespace vt::kernels
