// Shared by the GELU-family com.microsoft operators (gelu_ops.cc, bias_split_gelu.cc) and
// ONNX Gelu-20 (elementwise/activation.cc): the activation of a whole tensor on a row of the
// GELU kernel family (kernels/activation/gelu_ukernel.h), in any float type.
#pragma once

#include "kernels/activation/gelu_table.h"
#include "vtensor/exec/kernel.h"

namespace vt::ops {

// f(v) in double (float64 tensors), the definitions of gelu_ukernel.h.
double GeluOf(kernels::GeluKind kind, double alpha, double v);

// Output 0 = f(x + bias) with bias (optional, null: none) broadcast along x's last axis
// (bias->numel() == x's last dim, checked by the caller). float32 runs `row` in place of the
// output; float16 / bfloat16 compute in f32 and round once; float64 uses GeluOf.
// Errors: Unimplemented for a non-float x.
Status RunGelu(KernelContext& ctx, const kernels::GeluKernel& row, kernels::GeluKind kind,
               float alpha, const Tensor& x, const Tensor* bias);

}  // namespace vt::ops
