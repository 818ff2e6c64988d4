// com.microsoft SkipLayerNormalization-1 and SkipSimplifiedLayerNormalization-1
// (docs/contrib-ops.md): the residual add fused with layer (or RMS) normalization over the
// last axis.
//
//   inputs   input [B, S, H] or [T, H]; skip (same shape, or [1, S, H] / [S, H] for a 3-D input:
//            the last two dims must equal input's; row r of input adds skip row r mod rows(skip));
//            gamma [H]; SkipLayerNormalization: beta [H] (optional), bias [H] (optional);
//            SkipSimplifiedLayerNormalization: bias [H] (optional, input 3).
//   outputs  output (input's shape and type); mean and inv_std_var (optional, float32,
//            input's shape with the last dim 1; mean is 0 for the simplified op, as ONNX Runtime
//            writes it); input_skip_bias_sum (optional, input's shape and type).
//   attrs    epsilon (float, default 1e-12, >= 0).
//   types    float32, float16, bfloat16 (computed in f32 and rounded once), float64 (in double).
// Errors (node and input named): input of rank other than 2 or 3, skip not matching as above,
// gamma / beta / bias not of shape [H], element types differing from input's, epsilon < 0.
#include <cmath>
#include <optional>
#include <vector>

#include "ops/common/f32_compute.h"
#include "ops/common/reduce_dtype.h"
#include "ops/contrib/contrib_inputs.h"
#include "ops/common/row_kernels.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

struct SkipNormArgs {
  Tensor x, skip, gamma;
  std::optional<Tensor> beta, bias;
  int64_t rows = 0, hidden = 0, skip_rows = 0;
  float epsilon = 0;
};

Status CheckSkip(const KernelContext& ctx, const Tensor& x, const Tensor& skip) {
  const auto& xs = x.shape();
  const auto& ss = skip.shape();
  const std::string why = InputLabel(1, "skip") + ": shape " + ShapeToString(ss) + " does not match input " +
                          ShapeToString(xs) + " (expected the input's shape";
  if (ss.size() != 2 && ss.size() != 3) return ctx.Error(why + ", [1, S, H] or [S, H])");
  if (xs.size() == 2 && ss != xs) return ctx.Error(why + " for a 2-D input)");
  if (ss[ss.size() - 1] != xs[xs.size() - 1] || ss[ss.size() - 2] != xs[xs.size() - 2])
    return ctx.Error(why + ", [1, S, H] or [S, H])");
  if (skip.numel() == 0 && x.numel() > 0) return ctx.Error(why + "; skip is empty)");
  return Status::Ok();
}

Expected<SkipNormArgs> ReadArgs(const KernelContext& ctx, bool simplified) {
  SkipNormArgs a;
  VT_ASSIGN_OR_RETURN(a.x, RequiredInput(ctx, 0, "input"));
  VT_ASSIGN_OR_RETURN(a.skip, RequiredInput(ctx, 1, "skip"));
  VT_ASSIGN_OR_RETURN(a.gamma, RequiredInput(ctx, 2, "gamma"));
  if (simplified) {
    VT_ASSIGN_OR_RETURN(a.bias, OptionalInput(ctx, 3, "bias"));
  } else {
    VT_ASSIGN_OR_RETURN(a.beta, OptionalInput(ctx, 3, "beta"));
    VT_ASSIGN_OR_RETURN(a.bias, OptionalInput(ctx, 4, "bias"));
  }
  VT_RETURN_IF_ERROR(ExpectFloat(ctx, a.x, 0, "input"));
  const DType dt = a.x.dtype();
  if (a.x.rank() != 2 && a.x.rank() != 3)
    return ctx.Error(InputLabel(0, "input") + ": expected rank 3 [batch, sequence, hidden] or 2 "
                     "[tokens, hidden], got shape " + ShapeToString(a.x.shape()));
  a.hidden = a.x.shape().back();
  a.rows = NumElements(Shape(a.x.shape().begin(), a.x.shape().end() - 1));
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, a.skip, dt, 1, "skip"));
  VT_RETURN_IF_ERROR(CheckSkip(ctx, a.x, a.skip));
  a.skip_rows = NumElements(Shape(a.skip.shape().begin(), a.skip.shape().end() - 1));
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, a.gamma, dt, 2, "gamma"));
  VT_RETURN_IF_ERROR(ExpectVector(ctx, a.gamma, a.hidden, 2, "gamma"));
  if (a.beta) {
    VT_RETURN_IF_ERROR(ExpectSameDType(ctx, *a.beta, dt, 3, "beta"));
    VT_RETURN_IF_ERROR(ExpectVector(ctx, *a.beta, a.hidden, 3, "beta"));
  }
  if (a.bias) {
    const size_t i = simplified ? 3 : 4;
    VT_RETURN_IF_ERROR(ExpectSameDType(ctx, *a.bias, dt, i, "bias"));
    VT_RETURN_IF_ERROR(ExpectVector(ctx, *a.bias, a.hidden, i, "bias"));
  }
  a.epsilon = ctx.node().GetFloat("epsilon", 1e-12f);
  if (!(a.epsilon >= 0)) return ctx.Error("attribute epsilon must be >= 0, got " + std::to_string(a.epsilon));
  return a;
}

// Mean and inv_std_var outputs: float32, input's shape with the last dim 1.
void StoreStats(KernelContext& ctx, const Shape& xshape, const std::vector<float>& means,
                const std::vector<float>& invs) {
  Shape s = xshape;
  s.back() = 1;
  for (size_t o : {size_t{1}, size_t{2}}) {
    if (!ctx.output_requested(o)) continue;
    Tensor t = ctx.AllocOutput(o, DType::kFloat32, s);
    const auto& v = o == 1 ? means : invs;
    std::copy(v.begin(), v.end(), t.mutable_data<float>());
  }
}

class SkipNormKernel final : public OpKernel {
 public:
  SkipNormKernel(const KernelInit& init, bool simplified)
      : row_(LayerNormRowFor(init)), simplified_(simplified) {}

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(SkipNormArgs a, ReadArgs(ctx, simplified_));
    // Rows of zero elements: mean 0, variance 0.
    std::vector<float> means(static_cast<size_t>(a.rows), 0.0f),
        invs(static_cast<size_t>(a.rows), 1.0f / std::sqrt(a.epsilon));
    if (a.hidden == 0 || a.rows == 0) {
      ctx.AllocOutput(0, a.x.dtype(), a.x.shape());
      if (ctx.output_requested(3)) ctx.AllocOutput(3, a.x.dtype(), a.x.shape());
    } else if (a.x.dtype() == DType::kFloat64) {
      ComputeF64(ctx, a, means, invs);
    } else {
      ComputeF32(ctx, a, means, invs);
    }
    StoreStats(ctx, a.x.shape(), means, invs);
    return Status::Ok();
  }

 private:
  // f32 rows on the table's kernel; f16 / bf16 converted to f32 around it.
  void ComputeF32(KernelContext& ctx, const SkipNormArgs& a, std::vector<float>& means,
                  std::vector<float>& invs) const {
    const DType dt = a.x.dtype();
    const Tensor x = AsF32(a.x), skip = AsF32(a.skip), gamma = AsF32(a.gamma);
    const Tensor beta = a.beta ? AsF32(*a.beta) : Tensor(), bias = a.bias ? AsF32(*a.bias) : Tensor();
    Tensor y = AllocComputeOutput(ctx, 0, dt, a.x.shape());
    const bool want_sum = ctx.output_requested(3);
    Tensor sum = want_sum ? AllocComputeOutput(ctx, 3, dt, a.x.shape()) : Tensor();
    const int64_t h = a.hidden;
    ParallelRows(a.rows, 8 * a.x.numel(), ctx.threads(), [&](int64_t r) {
      kernels::LayerNormRow row;
      row.n = static_cast<size_t>(h);
      row.x = x.data<float>() + r * h;
      row.a = skip.data<float>() + (r % a.skip_rows) * h;
      row.b = a.bias ? bias.data<float>() : nullptr;
      row.gamma = gamma.data<float>();
      row.beta = a.beta ? beta.data<float>() : nullptr;
      row.y = y.mutable_data<float>() + r * h;
      row.sum = want_sum ? sum.mutable_data<float>() + r * h : nullptr;
      row.epsilon = a.epsilon;
      row.rms = simplified_;
      row_.ukernel(row, &means[static_cast<size_t>(r)], &invs[static_cast<size_t>(r)]);
    });
    FinishOutput(ctx, 0, dt, y);
    if (want_sum) FinishOutput(ctx, 3, dt, sum);
  }

  // float64: the reference twin in double.
  void ComputeF64(KernelContext& ctx, const SkipNormArgs& a, std::vector<float>& means,
                  std::vector<float>& invs) const {
    const Tensor x = a.x.Contiguous(), skip = a.skip.Contiguous(), gamma = a.gamma.Contiguous();
    const Tensor beta = a.beta ? a.beta->Contiguous() : Tensor();
    const Tensor bias = a.bias ? a.bias->Contiguous() : Tensor();
    Tensor y = ctx.AllocOutput(0, DType::kFloat64, a.x.shape());
    const bool want_sum = ctx.output_requested(3);
    Tensor sum = want_sum ? ctx.AllocOutput(3, DType::kFloat64, a.x.shape()) : Tensor();
    const int64_t h = a.hidden;
    ParallelRows(a.rows, 8 * a.x.numel(), ctx.threads(), [&](int64_t r) {
      kernels::LayerNormRowT<double> row;
      row.n = static_cast<size_t>(h);
      row.x = x.data<double>() + r * h;
      row.a = skip.data<double>() + (r % a.skip_rows) * h;
      row.b = a.bias ? bias.data<double>() : nullptr;
      row.gamma = gamma.data<double>();
      row.beta = a.beta ? beta.data<double>() : nullptr;
      row.y = y.mutable_data<double>() + r * h;
      row.sum = want_sum ? sum.mutable_data<double>() + r * h : nullptr;
      row.epsilon = a.epsilon;
      row.rms = simplified_;
      double mean, inv;
      kernels::LayerNormReferenceT(row, &mean, &inv);
      means[static_cast<size_t>(r)] = static_cast<float>(mean);
      invs[static_cast<size_t>(r)] = static_cast<float>(inv);
    });
  }

  const kernels::LayerNormKernel& row_;
  bool simplified_;
};

template <bool kSimplified>
Expected<std::unique_ptr<OpKernel>> MakeSkipNorm(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new SkipNormKernel(init, kSimplified));
}

VT_REGISTER_OP("com.microsoft", "SkipLayerNormalization", 1, kMaxOpset,
               KernelFactory(MakeSkipNorm<false>));
VT_REGISTER_OP("com.microsoft", "SkipSimplifiedLayerNormalization", 1, kMaxOpset,
               KernelFactory(MakeSkipNorm<true>));

}  // namespace
}  // namespace vt::ops
