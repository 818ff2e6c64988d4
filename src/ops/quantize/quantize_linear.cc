// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear (ONNX Operators.md; opset 10
// per-tensor, 13 per-axis, 19 float16/bfloat16 scales, 21 blocked and output_dtype, 23
// precision of the division / multiplication, x and y_scale of different types).
//   QuantizeLinear:   y = saturate(round_half_even(x / scale) + zero_point)
//   DequantizeLinear: y = (x - zero_point) * scale
//   DynamicQuantizeLinear (uint8): scale = (max(0, max x) - min(0, min x)) / 255,
//                     zero_point = saturate(round(-min(0, min x) / scale)), y as QuantizeLinear.
// Integer formats: uint8, int8, uint16, int16, uint4, int4 (and int32 input for
// DequantizeLinear); float formats (opset 19 / 23): the float8 types and float4e2m1, where
// QuantizeLinear rounds x / scale + zero_point to the type with the Cast rules and `saturate`
// (layout/minifloat.h) and DequantizeLinear computes in float32.
#include <cmath>

#include "vtensor/layout/minifloat.h"

#include "ops/common/op_util.h"
#include "ops/quantize/quantize_util.h"
#include "ops/common/reduce_dtype.h"

namespace vt::ops {
namespace {

// Float32 contiguous copy (or view) of any numeric tensor.
Tensor AsFloat32(const Tensor& t) {
  Tensor w = WidenForCompute(t);
  return w.dtype() == DType::kFloat32 ? w : CastTensor(w, DType::kFloat32);
}

// Output type of QuantizeLinear: y_zero_point's type, else `output_dtype` (opset 21), else
// uint8. Errors: InvalidArgument when both are given and differ.
Expected<DType> QuantizeOutputDType(const KernelContext& ctx, const Tensor* zp) {
  const int64_t od = ctx.node().GetInt("output_dtype", 0);
  if (zp == nullptr) return od != 0 ? static_cast<DType>(od) : DType::kUInt8;
  if (od != 0 && od != static_cast<int64_t>(zp->dtype()))
    return ctx.Error("output_dtype " + std::to_string(od) + " differs from the y_zero_point type " +
                     DTypeName(zp->dtype()) + " (QuantizeLinear: both must name the output type)");
  return zp->dtype();
}

// Precision of QuantizeLinear's division x / y_scale. Opset 23: the `precision` attribute,
// else the type of y_scale; an int32 y_scale divides in double (the quotient of two integers
// is then exact enough for round-half-even to see its ties). Before opset 23 x and y_scale
// share one float type and the division is float32.
Expected<DType> DivisionPrecision(const KernelContext& ctx, DType scale_dt) {
  if (ctx.opset() < 23 || ctx.node().domain == "com.microsoft") return DType::kFloat32;
  const int64_t p = ctx.node().GetInt("precision", 0);
  if (p == 0) return scale_dt == DType::kInt32 ? DType::kFloat64 : scale_dt;
  if (!IsKnownDType(static_cast<int32_t>(p)) || !IsFloatDType(static_cast<DType>(p)))
    return ctx.Error("precision " + std::to_string(p) +
                     " is not a float type (1 float, 10 float16, 16 bfloat16, 11 double)");
  return static_cast<DType>(p);
}

// y[k] = saturate(round_half_even(quotient(k, p)) + zp[p]) over the [outer, dim, inner] view,
// p the scale/zero-point index of element k.
template <typename QuotientFn>
Status StoreQuantized(Tensor& y0, const QuantGeometry& g, const std::vector<int32_t>& zp,
                      int64_t lo, int64_t hi, QuotientFn quotient) {
  Tensor y = AsStorageInts(y0);
  return DispatchElem<kSetInt>(y.dtype(), [&](auto tag) -> Status {
    using Q = decltype(tag);
    Q* py = y.mutable_data<Q>();
    int64_t k = 0;
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t d = 0; d < g.dim; ++d)
        for (int64_t i = 0; i < g.inner; ++i, ++k) {
          const int64_t p = g.ParamIndex(o, d, i);
          py[k] = static_cast<Q>(RoundSaturate(quotient(k, p), zp[p], lo, hi));
        }
    return Status::Ok();
  });
}

// y[k] = code of (quotient(k, p) + zp[p]) in the small float type of y, with the Cast rounding
// and `saturate` rules (QuantizeLinear-19 / 23 float8 and float4e2m1 outputs).
template <typename QuotientFn>
void StoreMiniFloat(Tensor& y, const QuantGeometry& g, const std::vector<float>& zp,
                    bool saturate, QuotientFn quotient) {
  uint8_t* py = static_cast<uint8_t*>(y.raw_mutable_data());
  int64_t k = 0;
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t d = 0; d < g.dim; ++d)
      for (int64_t i = 0; i < g.inner; ++i, ++k) {
        const int64_t p = g.ParamIndex(o, d, i);
        const float v = static_cast<float>(quotient(k, p)) + zp[static_cast<size_t>(p)];
        py[k] = FloatToMiniFloat(y.dtype(), v, saturate);
      }
}

Status QuantizeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor scale_t, ctx.RequireTensor(1));
  Tensor zp_hold;
  const Tensor* zp_t = nullptr;
  if (ctx.has_input(2)) {
    VT_ASSIGN_OR_RETURN(zp_hold, ctx.RequireTensor(2));
    zp_t = &zp_hold;
  }
  VT_ASSIGN_OR_RETURN(DType out_dt, QuantizeOutputDType(ctx, zp_t));
  int64_t lo = 0, hi = 0;
  const bool mini = IsMiniFloatDType(out_dt);
  Status rs = mini ? Status::Ok() : QuantRange(out_dt, &lo, &hi);
  if (!rs.ok() || out_dt == DType::kInt32) return ctx.Unsupported("output dtype " + std::string(DTypeName(out_dt)));
  if (!IsFloatDType(x0.dtype()) && x0.dtype() != DType::kInt32)
    return ctx.Unsupported(std::string("input dtype ") + DTypeName(x0.dtype()));
  if (!IsFloatDType(scale_t.dtype()) && scale_t.dtype() != DType::kInt32)
    return ctx.Error(std::string("y_scale must be a float or int32 tensor, got ") +
                     DTypeName(scale_t.dtype()));
  VT_ASSIGN_OR_RETURN(DType prec, DivisionPrecision(ctx, scale_t.dtype()));
  VT_ASSIGN_OR_RETURN(QuantGeometry g, MakeQuantGeometry(ctx, x0.shape(), scale_t, zp_t));
  const size_t nparams = static_cast<size_t>(scale_t.numel());
  const std::vector<int32_t> zp =
      zp_t && !mini ? ToInt32Vector(*zp_t) : std::vector<int32_t>(nparams, 0);
  const std::vector<float> zp_f = zp_t && mini ? ToFloatVector(*zp_t) : std::vector<float>(nparams, 0);
  const bool saturate = ctx.node().GetInt("saturate", 1) != 0;
  Tensor y = ctx.AllocOutput(0, out_dt, x0.shape());
  Status st;
  auto store = [&](auto quotient) -> Status {
    if (!mini) return StoreQuantized(y, g, zp, lo, hi, quotient);
    StoreMiniFloat(y, g, zp_f, saturate, quotient);
    return Status::Ok();
  };
  if (prec == DType::kFloat32) {
    const std::vector<float> scale = ToFloatVector(scale_t);
    Tensor x = AsFloat32(x0);
    const float* px = x.data<float>();
    st = store([&](int64_t k, int64_t p) { return px[k] / scale[static_cast<size_t>(p)]; });
  } else {
    // Operands and quotient rounded to the precision type (the float64 quotient of two
    // 16-bit floats rounds to them exactly as their own division would).
    std::vector<double> x = ToDoubleVector(x0), scale = ToDoubleVector(scale_t);
    for (double& v : x) v = RoundToFloatDType(v, prec);
    for (double& v : scale) v = RoundToFloatDType(v, prec);
    st = store([&](int64_t k, int64_t p) {
      return RoundToFloatDType(x[static_cast<size_t>(k)] / scale[static_cast<size_t>(p)], prec);
    });
  }
  if (!st.ok()) return ctx.Annotate(std::move(st));
  return Status::Ok();
}

// Output type of DequantizeLinear: float32 before opset 19, then the type of x_scale (also in
// the com.microsoft form), and from opset 23 the `output_dtype` attribute when it is set.
Expected<DType> DequantizeOutputDType(const KernelContext& ctx, DType scale_dt) {
  const bool contrib = ctx.node().domain == "com.microsoft";
  if (ctx.opset() < 19 && !contrib) return DType::kFloat32;
  const int64_t od = contrib || ctx.opset() < 23 ? 0 : ctx.node().GetInt("output_dtype", 0);
  if (od == 0) return scale_dt;
  const DType t = static_cast<DType>(od);
  if (t != DType::kFloat32 && t != DType::kFloat16 && t != DType::kBFloat16)
    return ctx.Error("output_dtype " + std::to_string(od) +
                     " is not float (1), float16 (10) or bfloat16 (16)");
  return t;
}

// DequantizeLinear of float8 / float4e2m1 x: y = (x - zero_point) * scale in float32 (opset 23
// rounds the scale to the output type first, as for integer inputs).
Status DequantizeMiniFloat(KernelContext& ctx, const Tensor& x0, const Tensor* zp_t,
                           std::vector<float>& scale, const QuantGeometry& g, DType out_dt) {
  if (ctx.opset() >= 23)
    for (float& v : scale) v = static_cast<float>(RoundToFloatDType(v, out_dt));
  const std::vector<float> zp = zp_t ? ToFloatVector(*zp_t) : std::vector<float>(scale.size(), 0);
  Tensor x = x0.Contiguous();
  const auto* px = static_cast<const uint8_t*>(x.raw_data());
  Tensor y = AllocComputeOutput(ctx, 0, out_dt, x0.shape());
  auto run = [&](auto* py) {
    using O = std::remove_pointer_t<decltype(py)>;
    int64_t k = 0;
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t d = 0; d < g.dim; ++d)
        for (int64_t i = 0; i < g.inner; ++i, ++k) {
          const auto p = static_cast<size_t>(g.ParamIndex(o, d, i));
          py[k] = static_cast<O>((MiniFloatToFloat(x0.dtype(), px[k]) - zp[p]) * scale[p]);
        }
  };
  if (y.dtype() == DType::kFloat64) run(y.mutable_data<double>());
  else run(y.mutable_data<float>());
  FinishOutput(ctx, 0, out_dt, y);
  return Status::Ok();
}

Status DequantizeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor scale_t, ctx.RequireTensor(1));
  Tensor zp_hold;
  const Tensor* zp_t = nullptr;
  if (ctx.has_input(2)) {
    VT_ASSIGN_OR_RETURN(zp_hold, ctx.RequireTensor(2));
    zp_t = &zp_hold;
  }
  int64_t lo, hi;
  const bool mini = IsMiniFloatDType(x0.dtype());
  if (!mini && !QuantRange(x0.dtype(), &lo, &hi).ok())
    return ctx.Unsupported(std::string("input dtype ") + DTypeName(x0.dtype()));
  if (zp_t != nullptr && zp_t->dtype() != x0.dtype())
    return ctx.Error("x_zero_point dtype must match x");
  if (!IsFloatDType(scale_t.dtype())) return ctx.Error("x_scale must be a float tensor");
  VT_ASSIGN_OR_RETURN(QuantGeometry g, MakeQuantGeometry(ctx, x0.shape(), scale_t, zp_t));
  VT_ASSIGN_OR_RETURN(DType out_dt, DequantizeOutputDType(ctx, scale_t.dtype()));
  std::vector<float> scale = ToFloatVector(scale_t);
  if (mini) return DequantizeMiniFloat(ctx, x0, zp_t, scale, g, out_dt);
  const std::vector<int32_t> zp =
      zp_t ? ToInt32Vector(*zp_t) : std::vector<int32_t>(scale.size(), 0);
  // Opset 23: "the output type also determines the precision of the multiplication": both
  // factors are rounded to it, and their float32 product (exact for 16-bit floats) is rounded
  // once into the output. Earlier opsets multiply in float32.
  const bool round_factors = ctx.opset() >= 23 && IsHalfDType(out_dt);
  if (ctx.opset() >= 23)
    for (float& v : scale) v = static_cast<float>(RoundToFloatDType(v, out_dt));
  Tensor x = AsStorageInts(x0.Contiguous());
  Tensor y = AllocComputeOutput(ctx, 0, out_dt, x0.shape());
  Status st = DispatchElem<kSetInt>(x.dtype(), [&](auto tag) -> Status {
    using Q = decltype(tag);
    const Q* px = x.data<Q>();
    int64_t k = 0;
    auto run = [&](auto* py) {
      using O = std::remove_pointer_t<decltype(py)>;
      for (int64_t o = 0; o < g.outer; ++o)
        for (int64_t d = 0; d < g.dim; ++d)
          for (int64_t i = 0; i < g.inner; ++i, ++k) {
            const int64_t p = g.ParamIndex(o, d, i);
            const int64_t a = static_cast<int64_t>(px[k]) - zp[p];
            const float fa = round_factors ? static_cast<float>(RoundToFloatDType(
                                                 static_cast<double>(a), out_dt))
                                           : static_cast<float>(a);
            py[k] = static_cast<O>(fa * scale[static_cast<size_t>(p)]);
          }
    };
    // float64 scales (outside the spec's T2, accepted as before) give a float64 output.
    if (y.dtype() == DType::kFloat64) run(y.mutable_data<double>());
    else run(y.mutable_data<float>());
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  FinishOutput(ctx, 0, out_dt, y);
  return Status::Ok();
}

Status DynamicQuantizeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  if (!IsFloatDType(x0.dtype()))
    return ctx.Unsupported(std::string("input dtype ") + DTypeName(x0.dtype()));
  Tensor x = AsFloat32(x0);
  const float* px = x.data<float>();
  const int64_t n = x.numel();
  float mn = 0, mx = 0;  // the range always includes 0 so that 0 is exactly representable
  for (int64_t i = 0; i < n; ++i) {
    mn = std::min(mn, px[i]);
    mx = std::max(mx, px[i]);
  }
  const float scale = (mx - mn) / 255.0f;
  const int64_t zp = scale > 0 ? RoundSaturate(-mn / scale, 0, 0, 255) : 0;
  Tensor y = ctx.AllocOutput(0, DType::kUInt8, x0.shape());
  uint8_t* py = y.mutable_data<uint8_t>();
  for (int64_t i = 0; i < n; ++i)
    py[i] = scale > 0 ? static_cast<uint8_t>(RoundSaturate(px[i] / scale, zp, 0, 255))
                      : static_cast<uint8_t>(zp);
  Tensor ys = ctx.AllocOutput(1, DType::kFloat32, {});
  *ys.mutable_data<float>() = scale;
  Tensor yz = ctx.AllocOutput(2, DType::kUInt8, {});
  *yz.mutable_data<uint8_t>() = static_cast<uint8_t>(zp);
  return Status::Ok();
}

VT_REGISTER_OP("", "QuantizeLinear", 10, kMaxOpset, QuantizeCompute);
VT_REGISTER_OP("", "DequantizeLinear", 10, kMaxOpset, DequantizeCompute);
VT_REGISTER_OP("", "DynamicQuantizeLinear", 11, kMaxOpset, DynamicQuantizeCompute);
// ONNX Runtime's contrib forms (QDQ models exported before opset 13): same per-tensor /
// per-axis contract as QuantizeLinear-13 / DequantizeLinear-13.
VT_REGISTER_OP("com.microsoft", "QuantizeLinear", 1, kMaxOpset, QuantizeCompute);
VT_REGISTER_OP("com.microsoft", "DequantizeLinear", 1, kMaxOpset, DequantizeCompute);

}  // namespace
}  // namespace vt::ops
