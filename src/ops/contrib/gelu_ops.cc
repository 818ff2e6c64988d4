// com.microsoft Gelu-1, BiasGelu-1, FastGelu-1 and QuickGelu-1 (docs/contrib-ops.md):
//   Gelu       Y = X * Phi(X)                             (the erf form)
//   BiasGelu   C = Gelu(A + B), B 1-D of A's last dim
//   FastGelu   Y = 0.5 V (1 + tanh(0.7978845608 (V + 0.044715 V^3))), V = X + bias, bias
//              optional, 1-D of X's last dim
//   QuickGelu  Y = X * sigmoid(alpha X), attribute alpha (float, default 1.702)
// Types: float32, float16, bfloat16 (f32 compute, one rounding), float64 (double).
// Errors (node and input named): a bias that is not 1-D of the last dim of the input, element
// types that differ, a non-float input.
#include "ops/contrib/gelu_ops.h"

#include <cmath>
#include <optional>
#include <vector>

#include "ops/common/f32_compute.h"
#include "ops/common/reduce_dtype.h"
#include "ops/contrib/contrib_inputs.h"
#include "ops/common/row_kernels.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {

using kernels::GeluKind;

double GeluOf(GeluKind kind, double alpha, double v) {
  auto sigmoid = [](double w) {
    const double e = std::exp(-std::fabs(w));
    return (w >= 0 ? 1.0 : e) / (1.0 + e);
  };
  switch (kind) {
    case GeluKind::kErf: return v * 0.5 * std::erfc(-v * 0.70710678118654752);
    case GeluKind::kTanh: return v * sigmoid(2 * 0.79788456080286536 * (v + 0.044715 * v * v * v));
    case GeluKind::kSigmoid: return v * sigmoid(alpha * v);
  }
  return v;
}

Status RunGelu(KernelContext& ctx, const kernels::GeluKernel& row, GeluKind kind, float alpha,
               const Tensor& x, const Tensor* bias) {
  VT_RETURN_IF_ERROR(ExpectFloat(ctx, x, 0, "X"));
  const DType dt = x.dtype();
  const int64_t numel = x.numel();
  // Rows of the bias length, or chunks of the flat tensor (for the threads) without a bias.
  const int64_t n = bias != nullptr ? bias->numel() : std::min<int64_t>(numel, 16384);
  const int64_t rows = n > 0 ? (numel + n - 1) / n : 0;
  if (dt == DType::kFloat64) {
    const Tensor xc = x.Contiguous();
    const Tensor bc = bias != nullptr ? bias->Contiguous() : Tensor();
    Tensor y = ctx.AllocOutput(0, dt, x.shape());
    const double* px = xc.data<double>();
    const double* pb = bias != nullptr ? bc.data<double>() : nullptr;
    double* py = y.mutable_data<double>();
    ParallelRows(rows, 32 * numel, ctx.threads(), [&](int64_t r) {
      for (int64_t i = r * n; i < std::min(numel, (r + 1) * n); ++i)
        py[i] = GeluOf(kind, alpha, pb != nullptr ? px[i] + pb[i - r * n] : px[i]);
    });
    return Status::Ok();
  }
  const Tensor xf = AsF32(x);
  const Tensor bf = bias != nullptr ? AsF32(*bias) : Tensor();
  Tensor y = AllocComputeOutput(ctx, 0, dt, x.shape());
  ParallelRows(rows, 32 * numel, ctx.threads(), [&](int64_t r) {
    kernels::GeluRow g;
    g.n = static_cast<size_t>(std::min(n, numel - r * n));
    g.x = xf.data<float>() + r * n;
    g.bias = bias != nullptr ? bf.data<float>() : nullptr;
    g.y = y.mutable_data<float>() + r * n;
    g.kind = kind;
    g.alpha = alpha;
    row.ukernel(g);
  });
  FinishOutput(ctx, 0, dt, y);
  return Status::Ok();
}

namespace {

// Bias input i of `x`: 1-D, x's last dim, x's element type.
Status CheckBias(const KernelContext& ctx, const Tensor& x, const Tensor& b, size_t i, const char* name) {
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, b, x.dtype(), i, name));
  if (x.rank() == 0) return ctx.Error(InputLabel(0, "X") + " must have rank >= 1 to take a bias");
  return ExpectVector(ctx, b, x.shape().back(), i, name);
}

class GeluOpKernel final : public OpKernel {
 public:
  // bias_input: index of the bias input (0: none); bias_required: BiasGelu.
  GeluOpKernel(const KernelInit& init, GeluKind kind, size_t bias_input, bool bias_required)
      : row_(GeluRowFor(init)), kind_(kind), bias_input_(bias_input), bias_required_(bias_required) {
    alpha_ = kind == GeluKind::kSigmoid ? init.node.GetFloat("alpha", 1.702f) : 1.0f;
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor x, RequiredInput(ctx, 0, bias_required_ ? "A" : "X"));
    std::optional<Tensor> bias;
    if (bias_required_) {
      VT_ASSIGN_OR_RETURN(Tensor b, RequiredInput(ctx, bias_input_, "B"));
      bias = b;
    } else if (bias_input_ > 0) {
      VT_ASSIGN_OR_RETURN(bias, OptionalInput(ctx, bias_input_, "bias"));
    }
    if (bias) VT_RETURN_IF_ERROR(CheckBias(ctx, x, *bias, bias_input_, bias_required_ ? "B" : "bias"));
    return RunGelu(ctx, row_, kind_, alpha_, x, bias ? &*bias : nullptr);
  }

 private:
  const kernels::GeluKernel& row_;
  GeluKind kind_;
  size_t bias_input_;
  bool bias_required_;
  float alpha_ = 1.0f;
};

template <GeluKind kKind, size_t kBias, bool kRequired>
Expected<std::unique_ptr<OpKernel>> MakeGelu(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new GeluOpKernel(init, kKind, kBias, kRequired));
}

VT_REGISTER_OP("com.microsoft", "Gelu", 1, kMaxOpset,
               KernelFactory(MakeGelu<GeluKind::kErf, 0, false>));
VT_REGISTER_OP("com.microsoft", "BiasGelu", 1, kMaxOpset,
               KernelFactory(MakeGelu<GeluKind::kErf, 1, true>));
VT_REGISTER_OP("com.microsoft", "FastGelu", 1, kMaxOpset,
               KernelFactory(MakeGelu<GeluKind::kTanh, 1, false>));
VT_REGISTER_OP("com.microsoft", "QuickGelu", 1, kMaxOpset,
               KernelFactory(MakeGelu<GeluKind::kSigmoid, 0, false>));

}  // namespace
}  // namespace vt::ops
