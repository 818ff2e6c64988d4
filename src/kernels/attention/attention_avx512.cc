// attention_f32f16kv_f32_8x128_avx512 (attention_ukernel.h). Compiled with -mavx512f
// -mavx512bw -mavx512vl -mavx512dq -mfma; called only after run-time detection. The algorithm
// is attention_simd_inl.h's; this file supplies 16-lane vectors: f16 rows are widened with
// vcvtph2ps, row tails use masked (fault-free) loads and stores, and the 16 per-key dot
// product accumulators are reduced into one vector of 16 scores with a transpose-add tree.
#include <immintrin.h>

// GCC 12 reports the undefined pass-through operands inside its own AVX-512 intrinsic headers
// (_mm512_reduce_*_ps) once these templates are inlined: a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "kernels/attention/attention_simd_inl.h"

namespace vt::kernels {
namespace {

struct Avx512 {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr size_t kLanes = 16;
  static constexpr size_t kMaxQVectors = 8;  // head_size <= 128 keeps q in registers
  static constexpr size_t kPvMaxRows = 4;
  static constexpr size_t PvVectors(size_t rows) { return rows <= 2 ? 8 : 4; }
  static constexpr size_t kScoreRows = 8, kScoreVectors = 2;  // prefill score tile
  static constexpr size_t kPackMinRows = 8;

  static V Zero() { return _mm512_setzero_ps(); }
  static V Set1(float x) { return _mm512_set1_ps(x); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Max(V a, V b) { return _mm512_max_ps(a, b); }
  static V Select(Mask m, V a, V b) { return _mm512_mask_blend_ps(m, b, a); }
  static bool LaneOn(Mask m, size_t l) { return ((m >> l) & 1) != 0; }
  static Mask FirstN(size_t n) {
    return n >= 16 ? Mask(0xffff) : static_cast<Mask>((1u << n) - 1);
  }
  // Lanes lo <= lane < hi.
  static Mask RangeMask(int64_t lo, int64_t hi) {
    const int64_t a = lo < 0 ? 0 : lo > 16 ? 16 : lo, b = hi < 0 ? 0 : hi > 16 ? 16 : hi;
    return b <= a ? Mask(0) : static_cast<Mask>(FirstN(size_t(b)) & ~FirstN(size_t(a)));
  }

  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static V Load(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static V LoadN(const float* p, size_t n) { return _mm512_maskz_loadu_ps(FirstN(n), p); }
  static V LoadN(const uint16_t* p, size_t n) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(FirstN(n), p));
  }
  static V LoadMasked(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void Store(float* p, V x) { _mm512_storeu_ps(p, x); }
  static void StoreN(float* p, V x, size_t n) { _mm512_mask_storeu_ps(p, FirstN(n), x); }
  static float ReduceMax(V x) { return _mm512_reduce_max_ps(x); }
  static float ReduceAdd(V x) { return _mm512_reduce_add_ps(x); }

  // Lane k of the result = sum of the 16 lanes of a[k].
  static V ReduceKeys(const V* a) {
    __m512 t[8], u[4];
    for (int k = 0; k < 8; ++k)  // 128-bit lane: pairs of keys, partial over 2 of 4 elements
      t[k] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * k], a[2 * k + 1]),
                           _mm512_unpackhi_ps(a[2 * k], a[2 * k + 1]));
    for (int m = 0; m < 4; ++m) {  // 128-bit lane: keys 4m..4m+3, partial over the lane
      const __m512d x = _mm512_castps_pd(t[2 * m]), y = _mm512_castps_pd(t[2 * m + 1]);
      u[m] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)),
                           _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
    }
    const __m512 w0 = _mm512_add_ps(_mm512_shuffle_f32x4(u[0], u[1], 0x88),
                                    _mm512_shuffle_f32x4(u[0], u[1], 0xdd));
    const __m512 w1 = _mm512_add_ps(_mm512_shuffle_f32x4(u[2], u[3], 0x88),
                                    _mm512_shuffle_f32x4(u[2], u[3], 0xdd));
    return _mm512_add_ps(_mm512_shuffle_f32x4(w0, w1, 0x88), _mm512_shuffle_f32x4(w0, w1, 0xdd));
  }

  // In-place 16 x 16 transpose: unpack pairs of rows, then pairs of pairs, then 128-bit lanes.
  static void Transpose(V* r) {
    __m512 a[16], b[16];
    for (int i = 0; i < 8; ++i) {
      a[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      a[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; ++i) {  // b[4i + c], 128-bit lane l: rows 4i..4i+3 at column 4l + c
      const __m512d lo0 = _mm512_castps_pd(a[4 * i]), lo1 = _mm512_castps_pd(a[4 * i + 2]);
      const __m512d hi0 = _mm512_castps_pd(a[4 * i + 1]), hi1 = _mm512_castps_pd(a[4 * i + 3]);
      b[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo0, lo1));
      b[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo0, lo1));
      b[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi0, hi1));
      b[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi0, hi1));
    }
    for (int c = 0; c < 4; ++c) {  // 4 x 4 transpose of 128-bit lanes
      const __m512 e0 = _mm512_shuffle_f32x4(b[c], b[4 + c], 0x88);
      const __m512 e1 = _mm512_shuffle_f32x4(b[c], b[4 + c], 0xdd);
      const __m512 e2 = _mm512_shuffle_f32x4(b[8 + c], b[12 + c], 0x88);
      const __m512 e3 = _mm512_shuffle_f32x4(b[8 + c], b[12 + c], 0xdd);
      r[c] = _mm512_shuffle_f32x4(e0, e2, 0x88);
      r[8 + c] = _mm512_shuffle_f32x4(e0, e2, 0xdd);
      r[4 + c] = _mm512_shuffle_f32x4(e1, e3, 0x88);
      r[12 + c] = _mm512_shuffle_f32x4(e1, e3, 0xdd);
    }
  }

  // exp(x) to about 2 ulp: x = n ln2 + r, |r| <= ln2 / 2, degree-6 polynomial, times 2^n.
  // Exactly 0 below -87.3 (so exp(-inf) = 0); NaN stays NaN.
  static V Exp(V x) {
    const Mask live = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_GE_OQ);
    const Mask nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-88.0f)), _mm512_set1_ps(88.7f));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    const __m512 e = _mm512_maskz_mov_ps(live, _mm512_scalef_ps(p, n));
    return _mm512_mask_blend_ps(nan, e, x);
  }

  // tanh(x) = sign(x) (1 - e) / (1 + e), e = exp(-2|x|): absolute error a few ulp of 1.
  static V Tanh(V x) {
    const __m512 ax = _mm512_abs_ps(x);
    const __m512 e = Exp(_mm512_mul_ps(ax, _mm512_set1_ps(-2.0f)));
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 t = _mm512_div_ps(_mm512_sub_ps(one, e), _mm512_add_ps(one, e));
    const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(t), sign));
  }
};

}  // namespace

void attention_f32f16kv_f32_8x128_avx512(const AttentionCall& call, float* scratch) {
  attention_simd::Attention<Avx512, 8, 128>(call, scratch);
}

}  // namespace vt::kernels
