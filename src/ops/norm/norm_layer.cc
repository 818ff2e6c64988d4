// LayerNormalization (ONNX Operators.md LayerNormalization-17; also ONNX Runtime's
// com.microsoft LayerNormalization-1 with the same contract).
//
// X is viewed as [outer, n] with outer = prod(shape[:axis]) and n = prod(shape[axis:]); each
// row is normalised with its mean and population variance,
// Y = (X - mean) / sqrt(var + epsilon) * Scale + B, where Scale and the optional B broadcast
// unidirectionally to X. Mean and InvStdDev (optional outputs) have shape
// shape[:axis] + [1] * (rank - axis) and the stash_type element type (default float32).
// Statistics are accumulated in double whatever the stash type (but see the float32 rows below).
//
// The RMS variant (RMSNormalization-23, and ONNX Runtime's SimplifiedLayerNormalization) skips
// the mean: Y = X / sqrt(mean(X^2) + epsilon) * Scale; its optional output 1 is InvStdDev.
// RMSNormalization's Y takes the type of Scale.
//
// float32 rows whose Scale and B vary only over the normalised dims run on the row
// normalization kernel family (kernels/norm/layernorm_ukernel.h: f32 sums, two passes); the
// other cases accumulate in double here. ONNX Runtime's contrib LayerNormalization (default
// domain, opsets 1-16, before ONNX defined it) has the same contract and runs here too.
//
// A native kernel is required: libonnx 1.12's function expansion of this op crashes.
#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"
#include "ops/common/row_kernels.h"
#include "ops/norm/norm_moments.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

// `p` converted to compute dtype `cdt` and broadcast to `xshape`. When it only varies over the
// normalised dims [axis, rank) the result holds n values (`*per_row` false); otherwise one
// value per element of X (`*per_row` true).
Expected<Tensor> PrepareParam(const Tensor& p, DType cdt, const Shape& xshape, int axis,
                              bool* per_row) {
  auto bl = p.layout().BroadcastTo(xshape);
  if (!bl.ok())
    return InvalidArgument("cannot broadcast " + ShapeToString(p.shape()) + " to " +
                           ShapeToString(xshape));
  *per_row = false;
  for (int d = 0; d < axis; ++d)
    if (bl->strides()[static_cast<size_t>(d)] != 0 && xshape[static_cast<size_t>(d)] > 1)
      *per_row = true;
  Tensor view;
  if (*per_row) {
    view = p.WithLayout(*bl);
  } else {
    Shape s(xshape.begin() + axis, xshape.end());
    std::vector<int64_t> st(bl->strides().begin() + axis, bl->strides().end());
    VT_ASSIGN_OR_RETURN(Layout l, Layout::Strided(s, st, bl->offset()));
    view = p.WithLayout(l);
  }
  Tensor c = WidenForCompute(view);
  return c.dtype() == cdt ? c : CastTensor(c, cdt);
}

DType StashDType(int64_t stash) {
  switch (stash) {
    case 10: return DType::kFloat16;
    case 11: return DType::kFloat64;
    case 16: return DType::kBFloat16;
    default: return DType::kFloat32;
  }
}

template <bool kRms>
Status LayerNormCompute(KernelContext& ctx, const kernels::LayerNormKernel& fast_row) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor scale0, ctx.RequireTensor(1));
  const DType dt = x0.dtype();
  if (!IsFloatDType(dt))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");
  const int rank = x0.rank();
  if (rank == 0) return ctx.Error("X must have rank >= 1");
  auto axis_n = NormalizeAxis(ctx.node().GetInt("axis", -1), rank);
  if (!axis_n.ok()) return ctx.Annotate(axis_n.take_status());
  const int axis = static_cast<int>(*axis_n);
  const double eps = ctx.node().GetFloat("epsilon", 1e-5f);
  const DType stash = StashDType(ctx.node().GetInt("stash_type", 1));

  int64_t outer = 1, n = 1;
  Shape stat_shape;
  for (int d = 0; d < rank; ++d) {
    if (d < axis) {
      outer *= x0.dim(d);
      stat_shape.push_back(x0.dim(d));
    } else {
      n *= x0.dim(d);
      stat_shape.push_back(1);
    }
  }
  // RMSNormalization-23: Y has the type V of scale, which may differ from X's type T. The mixed
  // case computes in double when either type is float64, else in float32, and rounds Y once.
  const bool onnx_rms = kRms && ctx.node().domain.empty() && ctx.node().op_type == "RMSNormalization";
  const DType out_dt = onnx_rms ? scale0.dtype() : dt;
  if (!IsFloatDType(out_dt))
    return ctx.Unsupported(std::string("scale dtype ") + DTypeName(out_dt) + " not supported");
  const bool mixed = out_dt != dt;
  Tensor x = WidenForCompute(x0);
  if (mixed && out_dt == DType::kFloat64) x = CastTensor(x, DType::kFloat64);
  const DType cdt = x.dtype();
  bool scale_rows = false, bias_rows = false;
  auto scale = PrepareParam(scale0, cdt, x0.shape(), axis, &scale_rows);
  if (!scale.ok()) return ctx.Annotate(scale.take_status().WithContext("Scale"));
  Tensor bias;
  if (!kRms && ctx.has_input(2)) {
    VT_ASSIGN_OR_RETURN(Tensor b0, ctx.RequireTensor(2));
    auto b = PrepareParam(b0, cdt, x0.shape(), axis, &bias_rows);
    if (!b.ok()) return ctx.Annotate(b.take_status().WithContext("B"));
    bias = *b;
  }

  Tensor y = mixed ? Tensor::Empty(cdt, x0.shape()) : AllocComputeOutput(ctx, 0, dt, x0.shape());
  std::vector<double> means(static_cast<size_t>(outer)), invs(static_cast<size_t>(outer));
  Status st = DispatchElem<kSetFloat>(cdt, [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* ps = scale->data<T>();
    const T* pb = bias.defined() ? bias.data<T>() : nullptr;
    T* py = y.mutable_data<T>();
    if constexpr (std::is_same_v<T, float>) {
      if (!scale_rows && !bias_rows && n > 0) {
        ParallelRows(outer, 8 * x.numel(), ctx.threads(), [&](int64_t o) {
          kernels::LayerNormRow r;
          r.n = static_cast<size_t>(n);
          r.x = px + o * n;
          r.gamma = ps;
          r.beta = pb;
          r.y = py + o * n;
          r.epsilon = static_cast<float>(eps);
          r.rms = kRms;
          float mean, inv;
          fast_row.ukernel(r, &mean, &inv);
          means[static_cast<size_t>(o)] = mean;
          invs[static_cast<size_t>(o)] = inv;
        });
        return Status::Ok();
      }
    }
    ParallelRows(outer, 4 * x.numel(), ctx.threads(), [&](int64_t o) {
      const T* row = px + o * n;
      double mean, var;
      if constexpr (kRms) {
        double ss = 0;
        for (int64_t i = 0; i < n; ++i) ss += static_cast<double>(row[i]) * row[i];
        mean = 0;
        var = n > 0 ? ss / static_cast<double>(n) : 0.0;
      } else {
        RowMoments(row, n, &mean, &var);
      }
      const double inv = 1.0 / std::sqrt(var + eps);
      means[static_cast<size_t>(o)] = mean;
      invs[static_cast<size_t>(o)] = inv;
      const T tm = static_cast<T>(mean), ti = static_cast<T>(inv);
      const T* s = ps + (scale_rows ? o * n : 0);
      T* out = py + o * n;
      if (pb == nullptr) {
        for (int64_t i = 0; i < n; ++i) out[i] = (row[i] - tm) * ti * s[i];
      } else {
        const T* b = pb + (bias_rows ? o * n : 0);
        for (int64_t i = 0; i < n; ++i) out[i] = (row[i] - tm) * ti * s[i] + b[i];
      }
    });
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  if (mixed) ctx.SetOutput(0, Value(CastTensor(y, out_dt)));
  else FinishOutput(ctx, 0, dt, y);
  const size_t inv_out = kRms ? 1 : 2;
  if (!kRms && ctx.output_requested(1)) {
    Tensor m = ctx.AllocOutput(1, stash, stat_shape);
    StoreDoubles(m, means);
  }
  if (ctx.output_requested(inv_out)) {
    Tensor s = ctx.AllocOutput(inv_out, stash, stat_shape);
    StoreDoubles(s, invs);
  }
  return Status::Ok();
}

template <bool kRms>
class LayerNormKernel final : public OpKernel {
 public:
  explicit LayerNormKernel(const KernelInit& init) : row_(LayerNormRowFor(init)) {}
  Status Compute(KernelContext& ctx) const override { return LayerNormCompute<kRms>(ctx, row_); }

 private:
  const kernels::LayerNormKernel& row_;
};

template <bool kRms>
Expected<std::unique_ptr<OpKernel>> MakeLayerNorm(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new LayerNormKernel<kRms>(init));
}

VT_REGISTER_OP("", "LayerNormalization", 1, kMaxOpset, KernelFactory(MakeLayerNorm<false>));
VT_REGISTER_OP("com.microsoft", "LayerNormalization", 1, kMaxOpset, KernelFactory(MakeLayerNorm<false>));
VT_REGISTER_OP("", "RMSNormalization", 23, kMaxOpset, KernelFactory(MakeLayerNorm<true>));
VT_REGISTER_OP("", "SimplifiedLayerNormalization", 1, kMaxOpset, KernelFactory(MakeLayerNorm<true>));
VT_REGISTER_OP("com.microsoft", "SimplifiedLayerNormalization", 1, kMaxOpset,
               KernelFactory(MakeLayerNorm<true>));

}  // namespace
}  // namespace vt::ops
