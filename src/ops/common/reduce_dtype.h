// Element-type plumbing shared by the reduction, softmax and normalization kernels: 16-bit
// floats (float16, bfloat16) are computed in float32 and rounded once on output, so every
// kernel only instantiates float and double (and integers where the op allows them).
#pragma once

#include "vtensor/exec/kernel.h"

namespace vt::ops {

inline bool IsHalfDType(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

// dtype a kernel computes in for input dtype `t`: float32 for 16-bit floats, else `t`.
inline DType ComputeDType(DType t) { return IsHalfDType(t) ? DType::kFloat32 : t; }

// `t` as a contiguous tensor of ComputeDType(t.dtype()) (a view when no conversion is needed).
Tensor WidenForCompute(const Tensor& t);

// Buffer for output `i` of logical dtype `dt`: the real output when dt is computed natively,
// otherwise a float32 scratch tensor that FinishOutput() rounds into the real output.
Tensor AllocComputeOutput(KernelContext& ctx, size_t i, DType dt, const Shape& shape);
// Installs output `i` from the buffer returned by AllocComputeOutput (no-op unless dt is a
// 16-bit float).
void FinishOutput(KernelContext& ctx, size_t i, DType dt, const Tensor& buffer);

// Reads any numeric tensor (any layout) into a dense vector of doubles.
std::vector<double> ToDoubleVector(const Tensor& t);
// Writes `v` (numel values, row-major) into the contiguous float tensor `t` (f16, bf16, f32,
// f64); other dtypes are truncated towards zero.
void StoreDoubles(Tensor& t, const std::vector<double>& v);

}  // namespace vt::ops
