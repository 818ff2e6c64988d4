// Linear (affine) quantization helpers shared by the QuantizeLinear / DequantizeLinear family,
// the integer matmul/conv kernels and their QLinear* forms (ONNX Operators.md
// QuantizeLinear-13: y = saturate(round_half_even(x / scale) + zero_point)).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "vtensor/exec/kernel.h"

namespace vt::ops {

// Rounds half to even (the default FE_TONEAREST mode), adds `zp` and clamps to [lo, hi].
// NaN maps to the zero point.
inline int64_t RoundSaturate(float v, int64_t zp, int64_t lo, int64_t hi) {
  if (std::isnan(v)) return std::min(std::max(zp, lo), hi);
  const float r = std::nearbyint(v);
  // Clamp in float first so the int conversion below never overflows.
  const float lim = 4.0e18f;
  const int64_t q = static_cast<int64_t>(std::max(-lim, std::min(lim, r))) + zp;
  return std::min(std::max(q, lo), hi);
}

// RoundSaturate for a quotient held in double (QuantizeLinear-23 divisions in double precision).
inline int64_t RoundSaturate(double v, int64_t zp, int64_t lo, int64_t hi) {
  if (std::isnan(v)) return std::min(std::max(zp, lo), hi);
  const double lim = 4.0e18;
  const int64_t q = static_cast<int64_t>(std::max(-lim, std::min(lim, std::nearbyint(v)))) + zp;
  return std::min(std::max(q, lo), hi);
}

// `v` rounded to nearest even in the float dtype `t` (float16, bfloat16, float32; float64
// returns `v`), as a double. Other dtypes return `v`. Rounds once: the 16-bit types go through
// float32 with round-to-odd, which keeps a second rounding exact.
double RoundToFloatDType(double v, DType t);

// Value range of a quantized integer dtype (uint8, int8, uint16, int16, int32, uint4, int4).
// Errors: Unimplemented for other dtypes.
Status QuantRange(DType t, int64_t* lo, int64_t* hi);

// The same tensor with int4 / uint4 viewed as the int8 / uint8 they are stored as in memory
// (layout/dtype.h), so integer kernels dispatch on it; other dtypes unchanged.
Tensor AsStorageInts(const Tensor& t);

// Scale/zero-point addressing of a quantized tensor of shape `x_shape`
// (ONNX QuantizeLinear-21 "per-tensor", "per-axis" and "blocked" modes): element
// (o, d, i) of the [outer, axis_dim, inner] view uses parameter ParamIndex(o, d, i).
struct QuantGeometry {
  int64_t outer = 1, dim = 1, inner = 1;
  int64_t block = 0;     // > 0 for blocked quantization
  int64_t nblocks = 1;   // ceil(dim / block)
  bool per_tensor = true;
  int64_t ParamIndex(int64_t o, int64_t d, int64_t i) const {
    if (per_tensor) return 0;
    if (block == 0) return d;
    return (o * nblocks + d / block) * inner + i;
  }
};

// Builds the geometry from the scale shape and the node's axis / block_size attributes.
// Errors: InvalidArgument when the scale (and zero point, when given) shape does not match
// one of the modes.
Expected<QuantGeometry> MakeQuantGeometry(const KernelContext& ctx, const Shape& x_shape,
                                          const Tensor& scale, const Tensor* zero_point);

// Element values of a tensor as float / int32 (any numeric dtype and layout, row-major).
std::vector<float> ToFloatVector(const Tensor& t);
std::vector<int32_t> ToInt32Vector(const Tensor& t);

}  // namespace vt::ops
