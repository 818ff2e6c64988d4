// com.microsoft BiasSplitGelu-1 (docs/contrib-ops.md), the GEGLU of diffusion models:
//   X [N, S, D], bias [D], D even -> Y [N, S, D/2],
//   Y = (X[..., :D/2] + bias[:D/2]) * Gelu(X[..., D/2:] + bias[D/2:])   (erf Gelu)
// Types float32, float16 (f32 compute, one rounding). ONNX Runtime implements it on CUDA only;
// the tests' reference is numpy. Errors (node and input named): X not 3-D, D odd, bias not
// [D], differing element types.
#include <vector>

#include "ops/common/f32_compute.h"
#include "ops/common/reduce_dtype.h"
#include "ops/contrib/contrib_inputs.h"
#include "ops/common/row_kernels.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

class BiasSplitGeluKernel final : public OpKernel {
 public:
  explicit BiasSplitGeluKernel(const KernelInit& init) : row_(GeluRowFor(init)) {}

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor x, RequiredInput(ctx, 0, "X"));
    VT_ASSIGN_OR_RETURN(Tensor bias, RequiredInput(ctx, 1, "bias"));
    const DType dt = x.dtype();
    if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kBFloat16)
      return ctx.Unsupported(InputLabel(0, "X") + " has element type " + DTypeName(dt) +
                             "; the operator takes float32 or float16");
    if (x.rank() != 3)
      return ctx.Error(InputLabel(0, "X") + ": expected rank 3 [N, S, D], got shape " + ShapeToString(x.shape()));
    const int64_t d = x.dim(2), half = d / 2;
    if (d % 2 != 0) return ctx.Error(InputLabel(0, "X") + ": hidden dimension D = " + std::to_string(d) + " is odd");
    VT_RETURN_IF_ERROR(ExpectSameDType(ctx, bias, dt, 1, "bias"));
    VT_RETURN_IF_ERROR(ExpectVector(ctx, bias, d, 1, "bias"));
    const Tensor xf = AsF32(x), bf = AsF32(bias);
    Tensor y = AllocComputeOutput(ctx, 0, dt, {x.dim(0), x.dim(1), half});
    const int64_t rows = x.dim(0) * x.dim(1);
    const float* px = xf.data<float>();
    const float* pb = bf.data<float>();
    float* py = y.mutable_data<float>();
    ParallelRows(rows, 32 * x.numel(), ctx.threads(), [&](int64_t r) {
      const float* xr = px + r * d;
      float* yr = py + r * half;
      for (int64_t i = 0; i < half; ++i) yr[i] = xr[i] + pb[i];
      kernels::GeluRow g;  // y = Gelu(right + bias_right) * y
      g.n = static_cast<size_t>(half);
      g.x = xr + half;
      g.bias = pb + half;
      g.mul = yr;
      g.y = yr;
      g.kind = kernels::GeluKind::kErf;
      row_.ukernel(g);
    });
    FinishOutput(ctx, 0, dt, y);
    return Status::Ok();
  }

 private:
  const kernels::GeluKernel& row_;
};

Expected<std::unique_ptr<OpKernel>> MakeBiasSplitGelu(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new BiasSplitGeluKernel(init));
}

VT_REGISTER_OP("com.microsoft", "BiasSplitGelu", 1, kMaxOpset, KernelFactory(MakeBiasSplitGelu));

}  // namespace
}  // namespace vt::ops
