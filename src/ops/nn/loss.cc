// NegativeLogLikelihoodLoss-13 and SoftmaxCrossEntropyLoss-13 (ONNX Operators.md).
//
// Input [N, C] or [N, C, d1..dk] (scores / log-probabilities), target [N] or [N, d1..dk] with
// class indices (int32/int64), optional weight [C], reduction none | sum | mean (default mean),
// optional ignore_index. With w = weight[target] (or 1), and w = 0 where target == ignore_index:
//   loss[n, d] = -w * logp[n, target[n, d], d]
//   none -> loss (shape of target); sum -> sum(loss); mean -> sum(loss) / sum(w)
// (0 / 0 gives NaN as in the ONNX reference). SoftmaxCrossEntropyLoss applies log_softmax over
// C first and can also return it (output 1, log_prob, shaped like the scores).
// Native kernels: libonnx 1.12 cannot expand SoftmaxCrossEntropyLoss when ignore_index is
// absent (its body forwards the unset attribute to NegativeLogLikelihoodLoss).
#include <cmath>
#include <limits>
#include <optional>

#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"

namespace vt::ops {
namespace {

struct LossShape {
  int64_t n = 0, c = 0, d = 1;  // input viewed as [N, C, D]
};

Expected<LossShape> CheckShapes(const KernelContext& ctx, const Tensor& x, const Tensor& target) {
  if (x.rank() < 2) return ctx.Error("input must be [N, C] or [N, C, d1..dk]");
  if (target.dtype() != DType::kInt64 && target.dtype() != DType::kInt32)
    return ctx.Error(std::string("target must be int32/int64, got ") + DTypeName(target.dtype()));
  Shape want{x.dim(0)};
  want.insert(want.end(), x.shape().begin() + 2, x.shape().end());
  if (target.shape() != want)
    return ctx.Error("target shape " + ShapeToString(target.shape()) + " does not match input " +
                     ShapeToString(x.shape()) + " (expected " + ShapeToString(want) + ")");
  LossShape s;
  s.n = x.dim(0);
  s.c = x.dim(1);
  for (int k = 2; k < x.rank(); ++k) s.d *= x.dim(k);
  return s;
}

// Applies NLL to log-probabilities `logp` ([N, C, D] row-major, double) and installs output 0.
Status NllFromLogProb(KernelContext& ctx, const std::vector<double>& logp, const LossShape& s,
                      DType dt, const Tensor& target_t) {
  const std::string reduction = ctx.node().GetString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return ctx.Error("unknown reduction '" + reduction + "'");
  std::optional<int64_t> ignore;
  if (ctx.node().FindAttr("ignore_index") != nullptr) ignore = ctx.node().GetInt("ignore_index", 0);
  std::vector<double> weight;
  if (ctx.has_input(2)) {
    VT_ASSIGN_OR_RETURN(Tensor w, ctx.RequireTensor(2));
    if (w.rank() != 1 || w.dim(0) != s.c)
      return ctx.Error("weight must be [C] = [" + std::to_string(s.c) + "]");
    weight = ToDoubleVector(w);
  }
  const std::vector<int64_t> target = ToInt64Vector(target_t);
  std::vector<double> loss(target.size());
  double total = 0, wsum = 0;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t d = 0; d < s.d; ++d) {
      const size_t k = static_cast<size_t>(n * s.d + d);
      const int64_t t = target[k];
      if (ignore && t == *ignore) {
        loss[k] = 0;
        continue;
      }
      if (t < 0 || t >= s.c)
        return ctx.Error("target " + std::to_string(t) + " out of range [0, " +
                         std::to_string(s.c) + ")");
      const double w = weight.empty() ? 1.0 : weight[static_cast<size_t>(t)];
      loss[k] = -w * logp[static_cast<size_t>((n * s.c + t) * s.d + d)];
      total += loss[k];
      wsum += w;
    }
  if (reduction == "none") {
    Tensor out = ctx.AllocOutput(0, dt, target_t.shape());
    StoreDoubles(out, loss);
    return Status::Ok();
  }
  Tensor out = ctx.AllocOutput(0, dt, {});
  const double v = reduction == "sum" ? total : total / wsum;
  StoreDoubles(out, {v});
  return Status::Ok();
}

Status NllCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor target, ctx.RequireTensor(1));
  if (!IsFloatDType(x.dtype()))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(x.dtype()) + " not supported");
  VT_ASSIGN_OR_RETURN(LossShape s, CheckShapes(ctx, x, target));
  return NllFromLogProb(ctx, ToDoubleVector(x), s, x.dtype(), target);
}

Status SoftmaxCrossEntropyCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor target, ctx.RequireTensor(1));
  if (!IsFloatDType(x.dtype()))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(x.dtype()) + " not supported");
  VT_ASSIGN_OR_RETURN(LossShape s, CheckShapes(ctx, x, target));
  std::vector<double> logp = ToDoubleVector(x);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t d = 0; d < s.d; ++d) {
      double* base = logp.data() + n * s.c * s.d + d;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < s.c; ++c) mx = std::max(mx, base[c * s.d]);
      if (!std::isfinite(mx)) mx = 0;
      double sum = 0;
      for (int64_t c = 0; c < s.c; ++c) sum += std::exp(base[c * s.d] - mx);
      const double off = mx + std::log(sum);
      for (int64_t c = 0; c < s.c; ++c) base[c * s.d] -= off;
    }
  VT_RETURN_IF_ERROR(NllFromLogProb(ctx, logp, s, x.dtype(), target));
  if (ctx.output_requested(1)) {
    Tensor lp = ctx.AllocOutput(1, x.dtype(), x.shape());
    StoreDoubles(lp, logp);
  }
  return Status::Ok();
}

VT_REGISTER_OP("", "NegativeLogLikelihoodLoss", 12, kMaxOpset, NllCompute);
VT_REGISTER_OP("", "SoftmaxCrossEntropyLoss", 12, kMaxOpset, SoftmaxCrossEntropyCompute);

}  // namespace
}  // namespace vt::ops
