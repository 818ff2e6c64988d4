// BatchNormalization (ONNX Operators.md, opsets 1-15).
//
// X is [N, C, D1..Dk]; scale, B, mean, var are [C] (or [C, D1..Dk] for spatial=0 before
// opset 9). Inference: Y = (X - mean) / sqrt(var + epsilon) * scale + B, folded to one
// multiply-add per element. Training (training_mode=1 from opset 14; before that, more than
// one output, or is_test=0 before opset 7): statistics are the batch mean and population
// variance over every axis but C, and the running outputs are
// mean * momentum + batch_mean * (1 - momentum) (likewise var). Opsets < 14 also expose
// saved_mean / saved_var (outputs 3, 4) as the batch statistics.
#include <cmath>

#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

bool IsTraining(const KernelContext& ctx) {
  const Node& n = ctx.node();
  if (ctx.opset() >= 14) return n.GetInt("training_mode", 0) != 0;
  if (ctx.opset() < 7 && n.FindAttr("is_test") != nullptr) return n.GetInt("is_test", 0) == 0;
  for (size_t i = 1; i < 5; ++i)
    if (ctx.output_requested(i)) return true;
  return false;
}

// y[n, c, s] = x[n, c, s] * a[c * per + s % per] + b[...]; `per` is 1 (per channel) or the
// spatial size (per activation, spatial=0).
template <typename T>
void Apply(const T* x, int64_t batch, int64_t channels, int64_t spatial,
           const std::vector<double>& a, const std::vector<double>& b, bool per_activation,
           T* y, int threads) {
  ParallelRows(batch * channels, batch * channels * spatial, threads, [&](int64_t nc) {
    const int64_t c = nc % channels;
    const T* px = x + nc * spatial;
    T* py = y + nc * spatial;
    if (!per_activation) {
      const T ac = static_cast<T>(a[c]), bc = static_cast<T>(b[c]);
      for (int64_t s = 0; s < spatial; ++s) py[s] = px[s] * ac + bc;
    } else {
      const double* pa = a.data() + c * spatial;
      const double* pb = b.data() + c * spatial;
      for (int64_t s = 0; s < spatial; ++s)
        py[s] = static_cast<T>(px[s] * pa[s] + pb[s]);
    }
  });
}

// Batch mean and population variance per channel (two passes, double accumulation).
template <typename T>
void BatchStats(const T* x, int64_t batch, int64_t channels, int64_t spatial,
                std::vector<double>* mean, std::vector<double>* var) {
  mean->assign(static_cast<size_t>(channels), 0.0);
  var->assign(static_cast<size_t>(channels), 0.0);
  const double cnt = static_cast<double>(batch * spatial);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      const T* p = x + (n * channels + c) * spatial;
      double s = 0;
      for (int64_t k = 0; k < spatial; ++k) s += p[k];
      (*mean)[c] += s;
    }
  for (auto& m : *mean) m = cnt > 0 ? m / cnt : 0.0;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      const T* p = x + (n * channels + c) * spatial;
      const double m = (*mean)[c];
      double s = 0;
      for (int64_t k = 0; k < spatial; ++k) s += (p[k] - m) * (p[k] - m);
      (*var)[c] += s;
    }
  for (auto& v : *var) v = cnt > 0 ? v / cnt : 0.0;
}

Status BatchNormCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  Tensor p[4];
  for (size_t i = 0; i < 4; ++i) {
    VT_ASSIGN_OR_RETURN(p[i], ctx.RequireTensor(i + 1));
  }
  const DType dt = x0.dtype();
  if (!IsFloatDType(dt))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");
  if (x0.rank() < 2) return ctx.Error("X must have rank >= 2 ([N, C, ...])");
  const int64_t batch = x0.dim(0), channels = x0.dim(1);
  const int64_t spatial = x0.numel() / std::max<int64_t>(1, batch * channels);
  const int64_t count = p[0].numel();
  bool per_activation = false;
  if (count != channels) {
    if (ctx.opset() < 9 && ctx.node().GetInt("spatial", 1) == 0 && count == channels * spatial)
      per_activation = true;
    else
      return ctx.Error("scale has " + std::to_string(count) + " elements, expected C = " +
                       std::to_string(channels));
  }
  for (int i = 1; i < 4; ++i)
    if (p[i].numel() != count)
      return ctx.Error("scale, B, mean and var must have the same number of elements");
  const double eps = ctx.node().GetFloat("epsilon", 1e-5f);
  const double momentum = ctx.node().GetFloat("momentum", 0.9f);
  const bool training = IsTraining(ctx);
  if (training && per_activation)
    return ctx.Unsupported("training statistics with spatial=0 are not supported");

  std::vector<double> scale = ToDoubleVector(p[0]), bias = ToDoubleVector(p[1]);
  std::vector<double> mean = ToDoubleVector(p[2]), var = ToDoubleVector(p[3]);
  Tensor x = WidenForCompute(x0);
  std::vector<double> bmean, bvar;
  if (training) {
    Status st = DispatchElem<kSetFloat>(x.dtype(), [&](auto tag) -> Status {
      using T = decltype(tag);
      BatchStats<T>(x.data<T>(), batch, channels, spatial, &bmean, &bvar);
      return Status::Ok();
    });
    if (!st.ok()) return ctx.Annotate(std::move(st));
  }
  const std::vector<double>& use_mean = training ? bmean : mean;
  const std::vector<double>& use_var = training ? bvar : var;
  std::vector<double> a(static_cast<size_t>(count)), b(static_cast<size_t>(count));
  for (size_t c = 0; c < a.size(); ++c) {
    a[c] = scale[c] / std::sqrt(use_var[c] + eps);
    b[c] = bias[c] - use_mean[c] * a[c];
  }
  Tensor y = AllocComputeOutput(ctx, 0, dt, x0.shape());
  if (x.numel() > 0) {
    Status st = DispatchElem<kSetFloat>(x.dtype(), [&](auto tag) -> Status {
      using T = decltype(tag);
      Apply<T>(x.data<T>(), batch, channels, spatial, a, b, per_activation, y.mutable_data<T>(),
               ctx.threads());
      return Status::Ok();
    });
    if (!st.ok()) return ctx.Annotate(std::move(st));
  }
  FinishOutput(ctx, 0, dt, y);
  if (!training) return Status::Ok();

  std::vector<double> run_mean(mean.size()), run_var(var.size());
  for (size_t c = 0; c < mean.size(); ++c) {
    run_mean[c] = mean[c] * momentum + bmean[c] * (1 - momentum);
    run_var[c] = var[c] * momentum + bvar[c] * (1 - momentum);
  }
  const std::vector<double>* outs[4] = {&run_mean, &run_var, &bmean, &bvar};
  const size_t nouts = ctx.opset() >= 14 ? 2 : 4;
  for (size_t i = 0; i < nouts; ++i) {
    if (!ctx.output_requested(i + 1)) continue;
    Tensor o = ctx.AllocOutput(i + 1, p[2 + (i % 2)].dtype(), {channels});
    StoreDoubles(o, *outs[i]);
  }
  return Status::Ok();
}

VT_REGISTER_OP("", "BatchNormalization", 1, kMaxOpset, BatchNormCompute);

}  // namespace
}  // namespace vt::ops
