#include "kernels/int8/s8_per_channel_pack.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/cpu/parallel_pack.h"

namespace vt::kernels {
namespace {

float ScaleOf(float amax) { return amax > 0.0f && std::isfinite(amax) ? amax / 127.0f : 1.0f; }

int8_t QuantizeReference(float x, float scale) {
  const float v = std::nearbyint(x / scale);
  return static_cast<int8_t>(std::isnan(v) ? 0.0f : std::clamp(v, -127.0f, 127.0f));
}

// The same value without a library call (this file is built for baseline x86-64, which has no
// rounding instruction): below 2^22 in magnitude, adding and subtracting 1.5 * 2^23 rounds to
// the nearest integer, ties to even, as nearbyint does in the default rounding mode; larger
// magnitudes (and infinities) are integral already and clamp to +-127; NaN gives 0.
int8_t Quantize(float x, float scale) {
  const float v = x / scale;
  constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
  const float r = std::fabs(v) < 4194304.0f ? (v + kMagic) - kMagic : v;
  return static_cast<int8_t>(r != r ? 0.0f : r < -127.0f ? -127.0f : r > 127.0f ? 127.0f : r);
}

#if defined(__SSE2__)
// Quantize for 4 lanes (x / scale per lane), bit for bit: the same division, the same
// magic-number rounding below 2^22, clamp, NaN -> 0. Returns the 4 int8 in the low 32 bits.
inline uint32_t QuantizeQuad(__m128 x, __m128 scale) {
  const __m128 v = _mm_div_ps(x, scale);
  const __m128 magic = _mm_set1_ps(12582912.0f);
  const __m128 abs = _mm_and_ps(v, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)));
  const __m128 small = _mm_cmplt_ps(abs, _mm_set1_ps(4194304.0f));
  const __m128 rounded = _mm_sub_ps(_mm_add_ps(v, magic), magic);
  __m128 r = _mm_or_ps(_mm_and_ps(small, rounded), _mm_andnot_ps(small, v));
  r = _mm_min_ps(_mm_max_ps(r, _mm_set1_ps(-127.0f)), _mm_set1_ps(127.0f));
  r = _mm_and_ps(r, _mm_cmpord_ps(v, v));  // NaN lanes (max took -127 for them) -> 0
  const __m128i i32 = _mm_cvtps_epi32(r);  // integral already: exact
  const __m128i i16 = _mm_packs_epi32(i32, i32);
  return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_packs_epi16(i16, i16)));
}
#endif

// Quantizes n contiguous values with per-value scales into n contiguous int8.
void QuantizeRun(const float* x, const float* scale, size_t n, int8_t* d) {
  size_t j = 0;
#if defined(__SSE2__)
  for (; j + 4 <= n; j += 4) {
    const uint32_t q = QuantizeQuad(_mm_loadu_ps(x + j), _mm_loadu_ps(scale + j));
    std::memcpy(d + j, &q, 4);
  }
#endif
  for (; j < n; ++j) d[j] = Quantize(x[j], scale[j]);
}

// [N, K] source: each column is a contiguous source row; columns [n0, n1).
void QuantizeColumns(size_t nr, size_t K, size_t n0, size_t n1, const float* b, int8_t* q,
                     float* scales) {
  for (size_t n = n0; n < n1; ++n) {
    const float* col = b + n * K;
    float amax = 0.0f;
    for (size_t k = 0; k < K; ++k) amax = std::max(amax, std::fabs(col[k]));
    const float scale = ScaleOf(amax);
    scales[n] = scale;
    int8_t* d = q + (n / nr) * K * nr + n % nr;
    size_t k = 0;
#if defined(__SSE2__)
    const __m128 sv = _mm_set1_ps(scale);
    for (; k + 4 <= K; k += 4, d += 4 * nr) {
      const uint32_t v = QuantizeQuad(_mm_loadu_ps(col + k), sv);
      d[0] = static_cast<int8_t>(v & 0xFF);
      d[nr] = static_cast<int8_t>((v >> 8) & 0xFF);
      d[2 * nr] = static_cast<int8_t>((v >> 16) & 0xFF);
      d[3 * nr] = static_cast<int8_t>(v >> 24);
    }
#endif
    for (; k < K; ++k, d += nr) *d = Quantize(col[k], scale);
  }
}

// [K, N] source: panels [p0, p1), row by row (each row's slice of those panels is contiguous).
void QuantizeRows(size_t nr, size_t K, size_t N, size_t p0, size_t p1, const float* b, int8_t* q,
                  float* scales) {
  const size_t n0 = p0 * nr, n1 = std::min(N, p1 * nr);
  if (n1 <= n0) return;
  std::vector<float> amax(n1 - n0, 0.0f);
  for (size_t k = 0; k < K; ++k) {
    const float* row = b + k * N + n0;
    for (size_t j = 0; j < n1 - n0; ++j) amax[j] = std::max(amax[j], std::fabs(row[j]));
  }
  for (size_t j = 0; j < n1 - n0; ++j) scales[n0 + j] = ScaleOf(amax[j]);
  for (size_t k = 0; k < K; ++k) {
    const float* row = b + k * N;
    for (size_t p = p0; p < p1; ++p) {
      const size_t j0 = p * nr, j1 = std::min(N, (p + 1) * nr);
      QuantizeRun(row + j0, scales + j0, j1 - j0, q + p * K * nr + k * nr);
    }
  }
}

}  // namespace

void QuantizeF32ToS8PerChannelPanels(size_t nr, size_t K, size_t N, const float* b, bool b_trans,
                                     int8_t* q, float* scales) {
  const size_t panels = (N + nr - 1) / nr;
  std::memset(q, 0, S8PerChannelPanelBytes(nr, K, N));  // the padding columns
  std::fill(scales + N, scales + panels * nr, 0.0f);
  const int threads = ParallelPackThreads(S8PerChannelPanelBytes(nr, K, N), panels);
  // Contiguous ranges of whole panels per thread: disjoint outputs.
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    const size_t n = static_cast<size_t>(omp_get_num_threads());
    const size_t p0 = panels * t / n, p1 = panels * (t + 1) / n;
    if (b_trans) QuantizeColumns(nr, K, p0 * nr, std::min(N, p1 * nr), b, q, scales);
    else QuantizeRows(nr, K, N, p0, p1, b, q, scales);
  }
}

void QuantizeF32ToS8PerChannelPanelsReference(size_t nr, size_t K, size_t N, const float* b,
                                              bool b_trans, int8_t* q, float* scales) {
  const size_t panels = (N + nr - 1) / nr;
  std::memset(q, 0, S8PerChannelPanelBytes(nr, K, N));
  std::fill(scales, scales + panels * nr, 0.0f);
  auto at = [&](size_t k, size_t n) { return b_trans ? b[n * K + k] : b[k * N + n]; };
  for (size_t n = 0; n < N; ++n) {
    float amax = 0.0f;
    for (size_t k = 0; k < K; ++k) amax = std::max(amax, std::fabs(at(k, n)));
    const float scale = ScaleOf(amax);
    scales[n] = scale;
    for (size_t k = 0; k < K; ++k)
      q[(n / nr) * K * nr + k * nr + n % nr] = QuantizeReference(at(k, n), scale);
  }
}

}  // namespace vt::kernels
