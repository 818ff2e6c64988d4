// MeanVarianceNormalization (ONNX Operators.md MeanVarianceNormalization-13): over `axes`
// (default [0, 2, 3]), Y = (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9), the epsilon placed as
// in the operator's function body. Variance uses two passes here instead of E[X^2] - E[X]^2.
#include <cmath>

#include "ops/norm/norm_moments.h"
#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"
#include "ops/reduce/reduce_parallel.h"
#include "ops/reduce/reduce_plan.h"

namespace vt::ops {
namespace {

constexpr double kMvnEpsilon = 1e-9;

template <typename T>
void MvnColumns(const T* x, int64_t reduce, int64_t inner, T* y) {
  std::vector<double> mean(static_cast<size_t>(inner), 0.0), var(static_cast<size_t>(inner), 0.0);
  for (int64_t r = 0; r < reduce; ++r)
    for (int64_t i = 0; i < inner; ++i) mean[i] += x[r * inner + i];
  for (auto& m : mean) m /= static_cast<double>(reduce);
  for (int64_t r = 0; r < reduce; ++r)
    for (int64_t i = 0; i < inner; ++i) {
      const double d = x[r * inner + i] - mean[i];
      var[i] += d * d;
    }
  for (int64_t i = 0; i < inner; ++i)
    var[i] = 1.0 / (std::sqrt(var[i] / static_cast<double>(reduce)) + kMvnEpsilon);
  for (int64_t r = 0; r < reduce; ++r)
    for (int64_t i = 0; i < inner; ++i)
      y[r * inner + i] = static_cast<T>((x[r * inner + i] - mean[i]) * var[i]);
}

Status MvnCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const DType dt = x0.dtype();
  if (!IsFloatDType(dt))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");
  std::vector<int64_t> raw = ctx.node().FindAttr("axes") ? ctx.node().GetInts("axes")
                                                         : std::vector<int64_t>{0, 2, 3};
  auto axes = NormalizeAxes(raw, x0.rank());
  if (!axes.ok()) return ctx.Annotate(axes.take_status());
  ReducePlan plan = PlanReduce(x0.shape(), *axes, true);
  Tensor x = ArrangeForReduce(WidenForCompute(x0), plan);
  // Result in the arranged order; permuted back below when the plan transposed.
  Tensor arranged = plan.perm.empty() ? AllocComputeOutput(ctx, 0, dt, x0.shape())
                                      : Tensor::Empty(x.dtype(), x.shape());
  Status st = DispatchElem<kSetFloat>(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = arranged.mutable_data<T>();
    const int64_t len = plan.reduce * plan.inner;
    ParallelRows(plan.outer, 4 * x.numel(), ctx.threads(), [&](int64_t o) {
      if (plan.inner == 1) {
        double mean, var;
        RowMoments(px + o * len, len, &mean, &var);
        const double a = 1.0 / (std::sqrt(var) + kMvnEpsilon);
        for (int64_t i = 0; i < len; ++i)
          py[o * len + i] = static_cast<T>((px[o * len + i] - mean) * a);
      } else {
        MvnColumns(px + o * len, plan.reduce, plan.inner, py + o * len);
      }
    });
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  if (plan.perm.empty()) {
    FinishOutput(ctx, 0, dt, arranged);
    return Status::Ok();
  }
  std::vector<int64_t> inv(plan.perm.size());
  for (size_t i = 0; i < plan.perm.size(); ++i) inv[static_cast<size_t>(plan.perm[i])] = static_cast<int64_t>(i);
  Tensor back = arranged.WithLayout(*arranged.layout().Transpose(inv));
  Tensor y = AllocComputeOutput(ctx, 0, dt, x0.shape());
  CopyToContiguous(back, y.raw_mutable_data());
  FinishOutput(ctx, 0, dt, y);
  return Status::Ok();
}

VT_REGISTER_OP("", "MeanVarianceNormalization", 1, kMaxOpset, MvnCompute);

}  // namespace
}  // namespace vt::ops
