// The scalar reference twin of the GELU-family rows (gelu_ukernel.h).
#include <cmath>

#include "kernels/activation/gelu_ukernel.h"

namespace vt::kernels {
namespace {

// 1 / (1 + e^-w) with e^-|w| (never overflows; keeps relative accuracy for w << 0).
float Sigmoid(float w) {
  const float e = std::exp(-std::fabs(w));
  return (w >= 0.0f ? 1.0f : e) / (1.0f + e);
}

float Apply(GeluKind kind, float alpha, float v) {
  switch (kind) {
    case GeluKind::kErf: {
      const float q = 0.5f * std::erfc(std::fabs(v) * 0.70710678118654752f);
      return v * (v < 0.0f ? q : 1.0f - q);
    }
    case GeluKind::kTanh: {
      const float u = 0.79788456080286536f * (v + 0.044715f * v * v * v);
      return v * Sigmoid(2.0f * u);
    }
    case GeluKind::kSigmoid:
      return v * Sigmoid(alpha * v);
  }
  return v;
}

}  // namespace

void GeluReference(const GeluRow& r) {
  for (size_t i = 0; i < r.n; ++i) {
    const float v = r.bias != nullptr ? r.x[i] + r.bias[i] : r.x[i];
    const float f = Apply(r.kind, r.alpha, v);
    r.y[i] = r.mul != nullptr ? f * r.mul[i] : f;
  }
}

}  // namespace vt::kernels
