// InstanceNormalization (ONNX Operators.md, opsets 1/6/22): X is [N, C, D1..Dk]; each (n, c)
// plane is normalised with its own mean and population variance,
// Y = (X - mean) / sqrt(var + epsilon) * scale[c] + B[c].
#include "ops/norm_moments.h"
#include "ops/op_util.h"
#include "ops/reduce_dtype.h"
#include "ops/reduce_parallel.h"

namespace vt::ops {
namespace {

Status InstanceNormCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor scale_t, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor bias_t, ctx.RequireTensor(2));
  const DType dt = x0.dtype();
  if (!IsFloatDType(dt))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");
  if (x0.rank() < 2) return ctx.Error("input must have rank >= 2 ([N, C, ...])");
  const int64_t batch = x0.dim(0), channels = x0.dim(1);
  if (scale_t.numel() != channels || bias_t.numel() != channels)
    return ctx.Error("scale and B must have C = " + std::to_string(channels) + " elements");
  const int64_t spatial = batch * channels > 0 ? x0.numel() / (batch * channels) : 0;
  const double eps = ctx.node().GetFloat("epsilon", 1e-5f);
  const std::vector<double> scale = ToDoubleVector(scale_t), bias = ToDoubleVector(bias_t);
  Tensor x = WidenForCompute(x0);
  Tensor y = AllocComputeOutput(ctx, 0, dt, x0.shape());
  Status st = DispatchFloat(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    ParallelRows(batch * channels, 3 * x.numel(), ctx.threads(), [&](int64_t nc) {
      const int64_t c = nc % channels;
      double mean, var;
      RowMoments(px + nc * spatial, spatial, &mean, &var);
      RowAffine(px + nc * spatial, spatial, mean, scale[c] / std::sqrt(var + eps), bias[c],
                py + nc * spatial);
    });
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Unsupported(st.message());
  FinishOutput(ctx, 0, dt, y);
  return Status::Ok();
}

VT_REGISTER_OP("", "InstanceNormalization", 1, kMaxOpset, InstanceNormCompute);

}  // namespace
}  // namespace vt::ops
