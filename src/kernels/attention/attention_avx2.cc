// attention_f32f16kv_f32_8x128_avx2 (attention_ukernel.h). Compiled with -mavx2 -mfma -mf16c
// (CMakeLists.txt); called only after run-time detection of all three. The algorithm is
// attention_simd_inl.h's; this file supplies 8-lane vectors: f16 rows are widened with
// vcvtph2ps, f32 row tails use vmaskmovps (fault-free), f16 tails go through a small stack
// copy, and the 8 per-key dot product accumulators are reduced with vhaddps.
#include <immintrin.h>

#include <cstring>

#include "kernels/attention/attention_simd_inl.h"

namespace vt::kernels {
namespace {

struct Avx2 {
  using V = __m256;
  using Mask = __m256;  // all-ones lanes
  static constexpr size_t kLanes = 8;
  static constexpr size_t kMaxQVectors = 8;  // head_size <= 64 keeps q in registers
  static constexpr size_t kPvMaxRows = 4;
  static constexpr size_t PvVectors(size_t rows) { return rows <= 2 ? 4 : 2; }
  static constexpr size_t kScoreRows = 4, kScoreVectors = 2;  // prefill score tile
  static constexpr size_t kPackMinRows = 8;

  static V Zero() { return _mm256_setzero_ps(); }
  static V Set1(float x) { return _mm256_set1_ps(x); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V Select(Mask m, V a, V b) { return _mm256_blendv_ps(b, a, m); }
  static bool LaneOn(Mask m, size_t l) {
    return ((_mm256_movemask_ps(m) >> l) & 1) != 0;
  }
  // Lanes lo <= lane < hi.
  static Mask RangeMask(int64_t lo, int64_t hi) {
    const int a = lo < 0 ? 0 : lo > 8 ? 8 : int(lo), b = hi < 0 ? 0 : hi > 8 ? 8 : int(hi);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i ge = _mm256_cmpgt_epi32(lane, _mm256_set1_epi32(a - 1));
    const __m256i lt = _mm256_cmpgt_epi32(_mm256_set1_epi32(b), lane);
    return _mm256_castsi256_ps(_mm256_and_si256(ge, lt));
  }
  static __m256i FirstN(size_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }

  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static V Load(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static V LoadN(const float* p, size_t n) { return _mm256_maskload_ps(p, FirstN(n)); }
  static V LoadN(const uint16_t* p, size_t n) {
    alignas(16) uint16_t tmp[8] = {};
    std::memcpy(tmp, p, (n < 8 ? n : 8) * sizeof(uint16_t));
    return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(tmp)));
  }
  static V LoadMasked(const float* p, Mask m) {
    return _mm256_maskload_ps(p, _mm256_castps_si256(m));
  }
  static void Store(float* p, V x) { _mm256_storeu_ps(p, x); }
  static void StoreN(float* p, V x, size_t n) { _mm256_maskstore_ps(p, FirstN(n), x); }
  static float ReduceMax(V x) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  static float ReduceAdd(V x) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }

  // Lane k of the result = sum of the 8 lanes of a[k].
  static V ReduceKeys(const V* a) {
    const __m256 h01 = _mm256_hadd_ps(a[0], a[1]), h23 = _mm256_hadd_ps(a[2], a[3]);
    const __m256 h45 = _mm256_hadd_ps(a[4], a[5]), h67 = _mm256_hadd_ps(a[6], a[7]);
    const __m256 lo = _mm256_hadd_ps(h01, h23), hi = _mm256_hadd_ps(h45, h67);
    // lo: keys 0-3 over elements 0-3 | keys 0-3 over elements 4-7 (same for hi, keys 4-7).
    return _mm256_add_ps(_mm256_permute2f128_ps(lo, hi, 0x20),
                         _mm256_permute2f128_ps(lo, hi, 0x31));
  }

  // In-place 8 x 8 transpose.
  static void Transpose(V* r) {
    __m256 a[8], b[8];
    for (int i = 0; i < 4; ++i) {
      a[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      a[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; ++i) {  // b[4i + c], 128-bit lane l: rows 4i..4i+3 at column 4l + c
      const __m256d lo0 = _mm256_castps_pd(a[4 * i]), lo1 = _mm256_castps_pd(a[4 * i + 2]);
      const __m256d hi0 = _mm256_castps_pd(a[4 * i + 1]), hi1 = _mm256_castps_pd(a[4 * i + 3]);
      b[4 * i] = _mm256_castpd_ps(_mm256_unpacklo_pd(lo0, lo1));
      b[4 * i + 1] = _mm256_castpd_ps(_mm256_unpackhi_pd(lo0, lo1));
      b[4 * i + 2] = _mm256_castpd_ps(_mm256_unpacklo_pd(hi0, hi1));
      b[4 * i + 3] = _mm256_castpd_ps(_mm256_unpackhi_pd(hi0, hi1));
    }
    for (int c = 0; c < 4; ++c) {
      r[c] = _mm256_permute2f128_ps(b[c], b[4 + c], 0x20);
      r[4 + c] = _mm256_permute2f128_ps(b[c], b[4 + c], 0x31);
    }
  }

  // exp(x) as the AVX-512 row computes it; 2^n built in the exponent field (n >= -126 after
  // the clamp), lanes below -87.3 set to 0 afterwards.
  static V Exp(V x) {
    const __m256 live = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_GE_OQ);
    const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    const __m256 xc =
        _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), _mm256_set1_ps(88.3f));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    const __m256i bits =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    const __m256 e = _mm256_and_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(bits)), live);
    return _mm256_blendv_ps(e, x, nan);
  }

  static V Tanh(V x) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256 ax = _mm256_andnot_ps(sign, x);
    const __m256 e = Exp(_mm256_mul_ps(ax, _mm256_set1_ps(-2.0f)));
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 t = _mm256_div_ps(_mm256_sub_ps(one, e), _mm256_add_ps(one, e));
    return _mm256_or_ps(t, _mm256_and_ps(x, sign));
  }
};

}  // namespace

void attention_f32f16kv_f32_8x128_avx2(const AttentionCall& call, float* scratch) {
  attention_simd::Attention<Avx2, 8, 128>(call, scratch);
}

}  // namespace vt::kernels
