// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear (ONNX Operators.md; opset 10
// per-tensor, 13 per-axis, 19 float16/bfloat16 scales, 21 blocked and output_dtype).
//   QuantizeLinear:   y = saturate(round_half_even(x / scale) + zero_point)
//   DequantizeLinear: y = (x - zero_point) * scale
//   DynamicQuantizeLinear (uint8): scale = (max(0, max x) - min(0, min x)) / 255,
//                     zero_point = saturate(round(-min(0, min x) / scale)), y as QuantizeLinear.
// Integer formats: uint8, int8, uint16, int16 (and int32 input for DequantizeLinear).
#include <cmath>

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

Status QuantizeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor scale_t, ctx.RequireTensor(1));
  Tensor zp_hold;
  const Tensor* zp_t = nullptr;
  if (ctx.has_input(2)) {
    VT_ASSIGN_OR_RETURN(zp_hold, ctx.RequireTensor(2));
    zp_t = &zp_hold;
  }
  DType out_dt = DType::kUInt8;
  if (zp_t != nullptr) out_dt = zp_t->dtype();
  else if (int64_t od = ctx.node().GetInt("output_dtype", 0); od != 0) out_dt = static_cast<DType>(od);
  int64_t lo, hi;
  Status rs = QuantRange(out_dt, &lo, &hi);
  if (!rs.ok() || out_dt == DType::kInt32) return ctx.Unsupported("output dtype " + std::string(DTypeName(out_dt)));
  if (!IsFloatDType(x0.dtype()) && x0.dtype() != DType::kInt32)
    return ctx.Unsupported(std::string("input dtype ") + DTypeName(x0.dtype()));
  VT_ASSIGN_OR_RETURN(QuantGeometry g, MakeQuantGeometry(ctx, x0.shape(), scale_t, zp_t));
  const std::vector<float> scale = ToFloatVector(scale_t);
  const std::vector<int32_t> zp =
      zp_t ? ToInt32Vector(*zp_t) : std::vector<int32_t>(scale.size(), 0);
  Tensor x = AsFloat32(x0);
  const float* px = x.data<float>();
  Tensor y = ctx.AllocOutput(0, out_dt, x0.shape());
  Status st = DispatchElem<kSetInt>(out_dt, [&](auto tag) -> Status {
    using Q = decltype(tag);
    Q* py = y.mutable_data<Q>();
    int64_t k = 0;
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t d = 0; d < g.dim; ++d)
        for (int64_t i = 0; i < g.inner; ++i, ++k) {
          const int64_t p = g.ParamIndex(o, d, i);
          py[k] = static_cast<Q>(RoundSaturate(px[k] / scale[p], zp[p], lo, hi));
        }
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
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
  if (!QuantRange(x0.dtype(), &lo, &hi).ok())
    return ctx.Unsupported(std::string("input dtype ") + DTypeName(x0.dtype()));
  if (zp_t != nullptr && zp_t->dtype() != x0.dtype())
    return ctx.Error("x_zero_point dtype must match x");
  if (!IsFloatDType(scale_t.dtype())) return ctx.Error("x_scale must be a float tensor");
  VT_ASSIGN_OR_RETURN(QuantGeometry g, MakeQuantGeometry(ctx, x0.shape(), scale_t, zp_t));
  const std::vector<float> scale = ToFloatVector(scale_t);
  const std::vector<int32_t> zp =
      zp_t ? ToInt32Vector(*zp_t) : std::vector<int32_t>(scale.size(), 0);
  // The output takes the scale's float type from opset 19 (and in the contrib form).
  const bool scale_typed = ctx.opset() >= 19 || ctx.node().domain == "com.microsoft";
  const DType out_dt = scale_typed ? scale_t.dtype() : DType::kFloat32;
  Tensor x = x0.Contiguous();
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
            py[k] = static_cast<O>(static_cast<float>(static_cast<int64_t>(px[k]) - zp[p]) * scale[p]);
          }
    };
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
