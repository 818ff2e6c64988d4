// Row statistics shared by the normalization kernels (Instance/Group/Layer/MeanVariance).
#pragma once

#include <cmath>
#include <cstdint>

namespace vt::ops {

// Mean and population variance of x[0..n) (two passes with double accumulation, so large
// offsets do not cancel the variance). n == 0 gives mean 0, variance 0.
template <typename T>
void RowMoments(const T* x, int64_t n, double* mean, double* var) {
  if (n <= 0) {
    *mean = 0;
    *var = 0;
    return;
  }
  double s0 = 0, s1 = 0;
  int64_t i = 0;
  for (; i + 2 <= n; i += 2) {
    s0 += static_cast<double>(x[i]);
    s1 += static_cast<double>(x[i + 1]);
  }
  if (i < n) s0 += static_cast<double>(x[i]);
  const double m = (s0 + s1) / static_cast<double>(n);
  double v0 = 0, v1 = 0;
  for (i = 0; i + 2 <= n; i += 2) {
    const double d0 = static_cast<double>(x[i]) - m, d1 = static_cast<double>(x[i + 1]) - m;
    v0 += d0 * d0;
    v1 += d1 * d1;
  }
  if (i < n) {
    const double d = static_cast<double>(x[i]) - m;
    v0 += d * d;
  }
  *mean = m;
  *var = (v0 + v1) / static_cast<double>(n);
}

// y[i] = (x[i] - mean) * a + b for a contiguous row.
template <typename T>
void RowAffine(const T* x, int64_t n, double mean, double a, double b, T* y) {
  const T ta = static_cast<T>(a), tb = static_cast<T>(b - mean * a);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * ta + tb;
}

}  // namespace vt::ops
