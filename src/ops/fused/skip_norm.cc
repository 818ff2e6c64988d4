// ai.vtensor SkipNorm (graph/fused_ops.h, docs/transformer-fusion.md): Sum = X + Skip and its
// layer (or RMS, attribute rms = 1) normalisation over the last axis, in one pass over the
// rows (kernels/rowwise). X and Skip: f32 of the same shape; Scale and B: f32 with N elements
// (N = the last dim). Outputs Y (and Sum when requested) are new contiguous tensors.
#include "kernels/cpu/flush_denormals.h"
#include "kernels/rowwise/rowwise_table.h"
#include "ops/fused/fused_rows.h"
#include "vtensor/exec/kernel.h"
#include "vtensor/graph/fused_ops.h"

namespace vt::ops {
namespace {

Status SkipNormCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor skip, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor scale, ctx.RequireTensor(2));
  const bool rms = ctx.node().GetInt(kRmsAttr, 0) != 0;
  Tensor bias;
  if (ctx.has_input(3)) {
    VT_ASSIGN_OR_RETURN(bias, ctx.RequireTensor(3));
  }
  for (const Tensor* t : {&x, &skip, &scale, &bias})
    if (t->defined() && t->dtype() != DType::kFloat32)
      return ctx.Unsupported(std::string("dtype ") + DTypeName(t->dtype()) + " (f32 only)");
  if (x.rank() < 1 || x.shape() != skip.shape())
    return ctx.Error("X " + ShapeToString(x.shape()) + " and Skip " + ShapeToString(skip.shape()) +
                     " must have one shape of rank >= 1");
  const int64_t n = x.dim(x.rank() - 1);
  if (scale.numel() != n || (bias.defined() && bias.numel() != n))
    return ctx.Error("Scale and B must have " + std::to_string(n) + " elements (the last dim of X)");
  Tensor y = ctx.AllocOutput(0, DType::kFloat32, x.shape());
  Tensor sum;
  if (ctx.output_requested(1)) sum = ctx.AllocOutput(1, DType::kFloat32, x.shape());
  if (x.numel() == 0) return Status::Ok();
  const F32Rows xr = AsF32Rows(x), sr = AsF32Rows(skip);
  const Tensor sc = scale.Contiguous(), b = bias.defined() ? bias.Contiguous() : Tensor();
  const auto& k = kernels::DefaultRowwiseKernel();
  ForRowRanges(xr.rows, 8 * n, ctx.threads(), [&](int64_t r0, int64_t r1) {
    const kernels::ScopedFlushDenormals ftz;
    kernels::NormRowsCall c;
    c.rows = static_cast<size_t>(r1 - r0), c.n = static_cast<size_t>(n);
    c.x = xr.data + r0 * xr.stride, c.x_stride = xr.stride;
    c.skip = sr.data + r0 * sr.stride, c.skip_stride = sr.stride;
    if (sum.defined()) c.sum = sum.mutable_data<float>() + r0 * n, c.sum_stride = n;
    c.gamma = sc.data<float>();
    c.beta = b.defined() ? b.data<float>() : nullptr;
    c.y = y.mutable_data<float>() + r0 * n, c.y_stride = n;
    c.epsilon = ctx.node().GetFloat("epsilon", 1e-5f);
    c.rms = rms;
    k.norm(c);
  });
  return Status::Ok();
}

VT_REGISTER_OP("ai.vtensor", "SkipNorm", 1, kMaxOpset, SkipNormCompute);

}  // namespace
}  // namespace vt::ops
