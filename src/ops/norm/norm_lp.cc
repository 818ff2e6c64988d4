// LpNormalization (ONNX Operators.md LpNormalization-1/22): Y = X / ||X||_p along `axis`
// (default -1), p in {1, 2} (default 2). A zero norm gives a zero output rather than NaN,
// matching ONNX Runtime.
#include <cmath>

#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

Status LpNormCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const DType dt = x0.dtype();
  if (!IsFloatDType(dt))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");
  const int64_t p = ctx.node().GetInt("p", 2);
  if (p != 1 && p != 2) return ctx.Error("p must be 1 or 2, got " + std::to_string(p));
  auto axis = NormalizeAxis(ctx.node().GetInt("axis", -1), x0.rank());
  if (!axis.ok()) return ctx.Annotate(axis.take_status());
  int64_t outer = 1, n = 1, inner = 1;
  for (int d = 0; d < x0.rank(); ++d) {
    if (d < *axis) outer *= x0.dim(d);
    else if (d == *axis) n = x0.dim(d);
    else inner *= x0.dim(d);
  }
  Tensor x = WidenForCompute(x0);
  Tensor y = AllocComputeOutput(ctx, 0, dt, x0.shape());
  Status st = DispatchElem<kSetFloat>(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    ParallelRows(outer, 3 * x.numel(), ctx.threads(), [&](int64_t o) {
      std::vector<double> norm(static_cast<size_t>(inner), 0.0);
      const T* b = px + o * n * inner;
      for (int64_t r = 0; r < n; ++r)
        for (int64_t i = 0; i < inner; ++i) {
          const double v = b[r * inner + i];
          norm[i] += p == 1 ? std::fabs(v) : v * v;
        }
      for (auto& v : norm) {
        if (p == 2) v = std::sqrt(v);
        v = v == 0 ? 0.0 : 1.0 / v;
      }
      T* q = py + o * n * inner;
      for (int64_t r = 0; r < n; ++r)
        for (int64_t i = 0; i < inner; ++i)
          q[r * inner + i] = static_cast<T>(b[r * inner + i] * norm[i]);
    });
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  FinishOutput(ctx, 0, dt, y);
  return Status::Ok();
}

VT_REGISTER_OP("", "LpNormalization", 1, kMaxOpset, LpNormCompute);

}  // namespace
}  // namespace vt::ops
