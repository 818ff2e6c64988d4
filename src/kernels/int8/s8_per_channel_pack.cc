#include "kernels/int8/s8_per_channel_pack.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

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
    for (size_t k = 0; k < K; ++k, d += nr) *d = Quantize(col[k], scale);
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
      int8_t* d = q + p * K * nr + k * nr;
      const size_t j1 = std::min(N, (p + 1) * nr);
      for (size_t n = p * nr; n < j1; ++n, ++d) *d = Quantize(row[n], scales[n]);
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
