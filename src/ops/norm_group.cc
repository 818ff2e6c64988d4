// GroupNormalization (ONNX Operators.md, opsets 18 and 21): X is [N, C, D1..Dk], the C
// channels are split into num_groups groups normalised together,
// Y = (X - mean_g) / sqrt(var_g + epsilon) * scale + bias. Opset 18 has one scale/bias per
// group ([num_groups]); opset 21 one per channel ([C]) and a stash_type (statistics are always
// accumulated in double here, which satisfies either stash type).
#include "ops/norm_moments.h"
#include "ops/op_util.h"
#include "ops/reduce_dtype.h"
#include "ops/reduce_parallel.h"

namespace vt::ops {
namespace {

Status GroupNormCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor scale_t, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor bias_t, ctx.RequireTensor(2));
  const DType dt = x0.dtype();
  if (!IsFloatDType(dt))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");
  if (x0.rank() < 2) return ctx.Error("input must have rank >= 2 ([N, C, ...])");
  const int64_t groups = ctx.node().GetInt("num_groups", 0);
  const int64_t batch = x0.dim(0), channels = x0.dim(1);
  if (groups <= 0 || channels % groups != 0)
    return ctx.Error("num_groups " + std::to_string(groups) + " must divide C = " +
                     std::to_string(channels));
  const bool per_channel = ctx.opset() >= 21;
  const int64_t want = per_channel ? channels : groups;
  if (scale_t.numel() != want || bias_t.numel() != want)
    return ctx.Error("scale and bias must have " + std::to_string(want) + " elements");
  const int64_t spatial = batch * channels > 0 ? x0.numel() / (batch * channels) : 0;
  const int64_t cpg = channels / groups;
  const double eps = ctx.node().GetFloat("epsilon", 1e-5f);
  const std::vector<double> scale = ToDoubleVector(scale_t), bias = ToDoubleVector(bias_t);
  Tensor x = WidenForCompute(x0);
  Tensor y = AllocComputeOutput(ctx, 0, dt, x0.shape());
  Status st = DispatchFloat(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    ParallelRows(batch * groups, 3 * x.numel(), ctx.threads(), [&](int64_t ng) {
      const int64_t g = ng % groups;
      const int64_t len = cpg * spatial, off = ng * len;
      double mean, var;
      RowMoments(px + off, len, &mean, &var);
      const double inv = 1.0 / std::sqrt(var + eps);
      for (int64_t k = 0; k < cpg; ++k) {
        const int64_t p = per_channel ? g * cpg + k : g;
        RowAffine(px + off + k * spatial, spatial, mean, scale[p] * inv, bias[p],
                  py + off + k * spatial);
      }
    });
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Unsupported(st.message());
  FinishOutput(ctx, 0, dt, y);
  return Status::Ok();
}

VT_REGISTER_OP("", "GroupNormalization", 18, kMaxOpset, GroupNormCompute);

}  // namespace
}  // namespace vt::ops
