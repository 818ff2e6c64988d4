// LRN, local response normalization across channels (ONNX Operators.md LRN-13): for X of
// shape [N, C, D1..Dk],
//   square_sum[n, c, d] = sum over c' in [c - floor((size-1)/2), c + ceil((size-1)/2)] ∩ [0, C)
//                         of X[n, c', d]^2
//   Y = X / (bias + alpha / size * square_sum) ^ beta
#include <cmath>

#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

Status LrnCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const DType dt = x0.dtype();
  if (!IsFloatDType(dt))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");
  if (x0.rank() < 2) return ctx.Error("input must have rank >= 2 ([N, C, ...])");
  const int64_t size = ctx.node().GetInt("size", 0);
  if (size <= 0) return ctx.Error("attribute size must be positive");
  const double alpha = ctx.node().GetFloat("alpha", 1e-4f);
  const double beta = ctx.node().GetFloat("beta", 0.75f);
  const double bias = ctx.node().GetFloat("bias", 1.0f);
  const int64_t batch = x0.dim(0), channels = x0.dim(1);
  const int64_t spatial = batch * channels > 0 ? x0.numel() / (batch * channels) : 0;
  const int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  Tensor x = WidenForCompute(x0);
  Tensor y = AllocComputeOutput(ctx, 0, dt, x0.shape());
  Status st = DispatchElem<kSetFloat>(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    const T scale = static_cast<T>(alpha / static_cast<double>(size));
    ParallelRows(batch * channels, x.numel() * (size + 2), ctx.threads(), [&](int64_t nc) {
      const int64_t n = nc / channels, c = nc % channels;
      std::vector<T> sq(static_cast<size_t>(spatial), T(0));
      const int64_t c0 = std::max<int64_t>(0, c - lo), c1 = std::min(channels - 1, c + hi);
      for (int64_t k = c0; k <= c1; ++k) {
        const T* p = px + (n * channels + k) * spatial;
        for (int64_t s = 0; s < spatial; ++s) sq[s] += p[s] * p[s];
      }
      const T* p = px + nc * spatial;
      T* q = py + nc * spatial;
      for (int64_t s = 0; s < spatial; ++s)
        q[s] = p[s] / std::pow(static_cast<T>(bias) + scale * sq[s], static_cast<T>(beta));
    });
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  FinishOutput(ctx, 0, dt, y);
  return Status::Ok();
}

VT_REGISTER_OP("", "LRN", 1, kMaxOpset, LrnCompute);

}  // namespace
}  // namespace vt::ops
