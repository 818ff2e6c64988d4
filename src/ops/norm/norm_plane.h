// Shared by InstanceNormalization and GroupNormalization: X is [N, C, D1..Dk] with scale and
// bias inputs, and runs of contiguous (n, c) planes are normalised independently.
#pragma once

#include <cstdint>
#include <string>

#include "ops/norm/norm_moments.h"
#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {

struct PlaneNormInputs {
  Tensor x, scale, bias;
  int64_t batch = 0, channels = 0, spatial = 0;  // N, C and D1 * .. * Dk
};

// Reads X (input 0), scale (1) and bias (2). Errors: Unsupported for a non-float X,
// InvalidArgument (naming the node) for a missing input or rank(X) < 2.
inline Expected<PlaneNormInputs> ReadPlaneNormInputs(const KernelContext& ctx) {
  PlaneNormInputs in;
  VT_ASSIGN_OR_RETURN(in.x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(in.scale, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(in.bias, ctx.RequireTensor(2));
  const DType dt = in.x.dtype();
  if (!IsFloatDType(dt))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");
  if (in.x.rank() < 2) return ctx.Error("input must have rank >= 2 ([N, C, ...])");
  in.batch = in.x.dim(0);
  in.channels = in.x.dim(1);
  in.spatial = in.batch * in.channels > 0 ? in.x.numel() / (in.batch * in.channels) : 0;
  return in;
}

// Computes output 0 (X's dtype and shape) from X: widens X for compute, then calls
// row(px, py, r) for every r in [0, rows) in parallel, px / py being typed pointers to the
// whole compute input / output.
template <typename RowFn>
Status RunPlaneNorm(KernelContext& ctx, const Tensor& x0, int64_t rows, RowFn&& row) {
  const DType dt = x0.dtype();
  Tensor x = WidenForCompute(x0);
  Tensor y = AllocComputeOutput(ctx, 0, dt, x0.shape());
  Status st = DispatchElem<kSetFloat>(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    ParallelRows(rows, 3 * x.numel(), ctx.threads(), [&](int64_t r) { row(px, py, r); });
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  FinishOutput(ctx, 0, dt, y);
  return Status::Ok();
}

}  // namespace vt::ops
