// Scalar reference twins of the row-wise kernels (rowwise_ukernel.h).
#include <algorithm>
#include <cmath>

#include "kernels/rowwise/rowwise_ukernel.h"

namespace vt::kernels {

void NormRowsReference(const NormRowsCall& c) {
  const size_t n = c.n;
  for (size_t r = 0; r < c.rows; ++r) {
    const float* x = c.x + static_cast<ptrdiff_t>(r) * c.x_stride;
    const float* s = c.skip ? c.skip + static_cast<ptrdiff_t>(r) * c.skip_stride : nullptr;
    float* y = c.y + static_cast<ptrdiff_t>(r) * c.y_stride;
    float* v = c.sum ? c.sum + static_cast<ptrdiff_t>(r) * c.sum_stride : y;
    // v is written before y is, so y may alias x or skip.
    for (size_t i = 0; i < n; ++i) {
      float t = x[i];
      if (s) t += s[i];
      if (c.bias) t += c.bias[i];
      v[i] = t;
    }
    float mean = 0.0f;
    if (!c.rms) {
      float acc = 0.0f;
      for (size_t i = 0; i < n; ++i) acc += v[i];
      mean = acc / static_cast<float>(n);
    }
    float acc = 0.0f;
    for (size_t i = 0; i < n; ++i) acc += (v[i] - mean) * (v[i] - mean);
    const float inv = 1.0f / std::sqrt(acc / static_cast<float>(n) + c.epsilon);
    for (size_t i = 0; i < n; ++i) {
      const float t = (v[i] - mean) * inv * c.gamma[i];
      y[i] = c.beta && !c.rms ? t + c.beta[i] : t;
    }
  }
}

namespace {
float Act(RowAct act, float x) {
  switch (act) {
    case RowAct::kNone: return x;
    case RowAct::kRelu: return x > 0.0f ? x : 0.0f;
    case RowAct::kGeluErf: return 0.5f * x * std::erfc(-x * 0.70710678118654752f);  // 1 + erf
    case RowAct::kGeluTanh: {
      const float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
      return x / (1.0f + std::exp(-2.0f * u));
    }
    case RowAct::kSilu: return x / (1.0f + std::exp(-x));
  }
  return x;
}
}  // namespace

void ActRowsReference(const ActRowsCall& c) {
  for (size_t r = 0; r < c.rows; ++r) {
    const float* x = c.x + static_cast<ptrdiff_t>(r) * c.x_stride;
    const float* m = c.mul ? c.mul + static_cast<ptrdiff_t>(r) * c.mul_stride : nullptr;
    float* y = c.y + static_cast<ptrdiff_t>(r) * c.y_stride;
    for (size_t i = 0; i < c.n; ++i) {
      float t = Act(c.act, c.bias ? x[i] + c.bias[i] : x[i]);
      y[i] = m ? t * m[i] : t;
    }
  }
}

void RotaryRowsReference(const RotaryRowsCall& c) {
  const size_t h = c.n / 2;
  for (size_t r = 0; r < c.rows; ++r) {
    const float* x = c.x + static_cast<ptrdiff_t>(r) * c.x_stride;
    const float* co = c.cos + static_cast<ptrdiff_t>(r) * c.cs_stride;
    const float* si = c.sin + static_cast<ptrdiff_t>(r) * c.cs_stride;
    float* y = c.y + static_cast<ptrdiff_t>(r) * c.y_stride;
    for (size_t d = 0; d < h; ++d) {
      const float a = x[d], b = x[d + h];  // both read before either is written (y may be x)
      y[d] = a * co[d] - b * si[d];
      y[d + h] = b * co[d + h] + a * si[d + h];
    }
  }
}

}  // namespace vt::kernels
