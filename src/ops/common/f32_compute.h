// Helpers for operators that compute in f32 whatever their floating-point dtype: f16, bf16
// and f64 inputs are converted to f32, the result converted back (the tolerance of the ONNX
// conformance data for these ops allows it; the hot models are f32 and take no copy).
#pragma once

#include "vtensor/tensor/tensor.h"

namespace vt::ops {

// True for f16, bf16, f32, f64.
bool IsF32Computable(DType t);
// Contiguous f32 version of `t` (a view when it already is contiguous f32).
Tensor AsF32(const Tensor& t);
// Converts the contiguous f32 tensor `src` into `dst` (contiguous, same numel, dtype f16, bf16,
// f32 or f64).
void StoreF32As(const Tensor& src, Tensor& dst);

}  // namespace vt::ops
