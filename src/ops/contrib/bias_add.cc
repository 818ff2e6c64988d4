// com.microsoft BiasAdd-1 (docs/contrib-ops.md): Y = X + bias + skip with X and skip
// [N, S, C] and bias [C] (the residual add of diffusion models). Types float32, float16 (f32
// compute, one rounding). ONNX Runtime implements it on CUDA only; the tests' reference is
// numpy. Errors (node and input named): X not 3-D, skip not X's shape, bias not [C],
// differing element types.
#include "ops/common/f32_compute.h"
#include "ops/common/reduce_dtype.h"
#include "ops/contrib/contrib_inputs.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

Status BiasAddCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, RequiredInput(ctx, 0, "X"));
  VT_ASSIGN_OR_RETURN(Tensor bias, RequiredInput(ctx, 1, "bias"));
  VT_ASSIGN_OR_RETURN(Tensor skip, RequiredInput(ctx, 2, "skip"));
  const DType dt = x.dtype();
  if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kBFloat16)
    return ctx.Unsupported(InputLabel(0, "X") + " has element type " + DTypeName(dt) +
                           "; the operator takes float32 or float16");
  if (x.rank() != 3)
    return ctx.Error(InputLabel(0, "X") + ": expected rank 3 [N, S, C], got shape " + ShapeToString(x.shape()));
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, bias, dt, 1, "bias"));
  VT_RETURN_IF_ERROR(ExpectVector(ctx, bias, x.dim(2), 1, "bias"));
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, skip, dt, 2, "skip"));
  if (skip.shape() != x.shape())
    return ctx.Error(InputLabel(2, "skip") + ": expected X's shape " + ShapeToString(x.shape()) + ", got " +
                     ShapeToString(skip.shape()));
  const Tensor xf = AsF32(x), bf = AsF32(bias), sf = AsF32(skip);
  Tensor y = AllocComputeOutput(ctx, 0, dt, x.shape());
  const int64_t c = x.dim(2), rows = x.dim(0) * x.dim(1);
  const float *px = xf.data<float>(), *pb = bf.data<float>(), *ps = sf.data<float>();
  float* py = y.mutable_data<float>();
  ParallelRows(rows, x.numel(), ctx.threads(), [&](int64_t r) {
    const int64_t o = r * c;
    for (int64_t i = 0; i < c; ++i) py[o + i] = px[o + i] + pb[i] + ps[o + i];
  });
  FinishOutput(ctx, 0, dt, y);
  return Status::Ok();
}

VT_REGISTER_OP("com.microsoft", "BiasAdd", 1, kMaxOpset, BiasAddCompute);

}  // namespace
}  // namespace vt::ops
