// ConvInteger-10 and QLinearConv-10 (ONNX Operators.md): N-d grouped convolution of 8-bit
// integer tensors with zero points, accumulated in int32 (reference implementation: im2col per
// image and group, then an int32 GEMM).
//   X [N, C, D1..Dk], W [M, C/group, K1..Kk]; attributes as Conv (auto_pad, dilations, group,
//   kernel_shape, pads, strides). Padding contributes nothing (it holds the zero point).
//   ConvInteger: Y(int32) = conv(X - x_zero_point, W - w_zero_point), w_zero_point per tensor
//     or per output channel [M].
//   QLinearConv: Y = saturate(round((acc + B[m]) * x_scale * w_scale[m] / y_scale) + y_zp).
#include <cmath>

#include "kernels/conv/conv_window.h"
#include "ops/common/op_util.h"
#include "ops/nn/conv_geometry.h"
#include "ops/quantize/quantize_util.h"

namespace vt::ops {
namespace {

struct ConvGeom {
  int64_t batch = 0, channels = 0, out_channels = 0, group = 1;
  SpatialGeometry sp;
};

// Shapes, group and the spatial geometry (ops/nn/conv_geometry.h, shared with Conv).
// Errors: InvalidArgument naming the node; Unimplemented past kernels::kMaxConvRank axes.
Expected<ConvGeom> PlanConv(const KernelContext& ctx, const Shape& x, const Shape& w) {
  if (x.size() < 3 || w.size() != x.size())
    return ctx.Error("X must be [N, C, D1..Dk] and W [M, C/group, K1..Kk] of the same rank");
  ConvGeom g;
  g.batch = x[0];
  g.channels = x[1];
  g.out_channels = w[0];
  g.group = ctx.node().GetInt("group", 1);
  if (g.group <= 0 || g.channels % g.group != 0 || g.out_channels % g.group != 0 ||
      w[1] * g.group != g.channels)
    return ctx.Error("group " + std::to_string(g.group) + " does not match X " +
                     ShapeToString(x) + " and W " + ShapeToString(w));
  const Shape in(x.begin() + 2, x.end()), kernel(w.begin() + 2, w.end());
  std::vector<int64_t> ks = ctx.node().GetInts("kernel_shape");
  if (!ks.empty() && ks != kernel) return ctx.Error("kernel_shape does not match W");
  VT_ASSIGN_OR_RETURN(g.sp, ComputeForwardGeometry(ctx, in, kernel, true, false));
  if (g.sp.rank() > static_cast<size_t>(kernels::kMaxConvRank))
    return ctx.Unsupported("more than " + std::to_string(kernels::kMaxConvRank) + " spatial axes");
  return g;
}

// Int32 accumulators [N, M, out...] of conv(x, w) with x, w already centred (zero point
// subtracted); out-of-bounds taps contribute 0.
std::vector<int32_t> ConvI32(const ConvGeom& g, const std::vector<int32_t>& x,
                             const std::vector<int32_t>& w) {
  const size_t nd = g.sp.in.size();
  const int64_t in_sz = NumElements(g.sp.in), k_sz = g.sp.kernel_numel(), out_sz = g.sp.out_numel();
  const int64_t cg = g.channels / g.group, mg = g.out_channels / g.group;
  std::vector<int32_t> y(static_cast<size_t>(g.batch * g.out_channels * out_sz), 0);
  std::vector<int32_t> col(static_cast<size_t>(cg * k_sz * out_sz));
  const kernels::ConvTapWalk walk{static_cast<int>(nd), g.sp.out.data(), g.sp.in.data(),
                                  g.sp.stride.data(), g.sp.dilation.data(), g.sp.pad_begin.data()};
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t gr = 0; gr < g.group; ++gr) {
      // im2col: col[(c * k_sz + kk) * out_sz + p]
      for (int64_t c = 0; c < cg; ++c) {
        const int32_t* xc = x.data() + (n * g.channels + gr * cg + c) * in_sz;
        for (int64_t kk = 0; kk < k_sz; ++kk) {
          int64_t tap[kernels::kMaxConvRank];
          kernels::UnflattenConvIndex(kk, g.sp.kernel.data(), static_cast<int>(nd), tap);
          int32_t* dst = col.data() + (c * k_sz + kk) * out_sz;
          kernels::ForEachTapPosition(walk, tap, 0, out_sz, [&](int64_t p, int64_t off) {
            dst[p] = off >= 0 ? xc[off] : 0;
          });
        }
      }
      const int64_t kdim = cg * k_sz;
      for (int64_t m = 0; m < mg; ++m) {
        const int64_t oc = gr * mg + m;
        const int32_t* wr = w.data() + oc * kdim;
        int32_t* yr = y.data() + (n * g.out_channels + oc) * out_sz;
        for (int64_t q = 0; q < kdim; ++q) {
          const int32_t wv = wr[q];
          if (wv == 0) continue;
          const int32_t* cr = col.data() + q * out_sz;
#pragma omp simd
          for (int64_t p = 0; p < out_sz; ++p) yr[p] += wv * cr[p];
        }
      }
    }
  return y;
}

Expected<std::vector<int32_t>> CenteredX(const Tensor& x, const Tensor* zp) {
  if (x.dtype() != DType::kUInt8 && x.dtype() != DType::kInt8)
    return Unimplemented(std::string("X dtype ") + DTypeName(x.dtype()) + " not supported");
  std::vector<int32_t> v = ToInt32Vector(x);
  if (zp != nullptr) {
    if (zp->numel() != 1) return InvalidArgument("x_zero_point must be a scalar");
    const int32_t z = static_cast<int32_t>(zp->GetInt64(0));
    for (auto& e : v) e -= z;
  }
  return v;
}

// W - w_zero_point with a per-tensor or per-output-channel zero point.
Expected<std::vector<int32_t>> CenteredW(const Tensor& w, const Tensor* zp) {
  if (w.dtype() != DType::kUInt8 && w.dtype() != DType::kInt8)
    return Unimplemented(std::string("W dtype ") + DTypeName(w.dtype()) + " not supported");
  std::vector<int32_t> v = ToInt32Vector(w);
  if (zp == nullptr) return v;
  const int64_t m = w.dim(0), per = m > 0 ? w.numel() / m : 0;
  if (zp->numel() != 1 && zp->numel() != m)
    return InvalidArgument("w_zero_point must be a scalar or have M elements");
  for (int64_t oc = 0; oc < m; ++oc) {
    const int32_t z = static_cast<int32_t>(zp->GetInt64(zp->numel() == 1 ? 0 : oc));
    for (int64_t i = 0; i < per; ++i) v[static_cast<size_t>(oc * per + i)] -= z;
  }
  return v;
}

const Tensor* OptionalInput(const KernelContext& ctx, size_t i) {
  return ctx.has_input(i) && ctx.input_value(i)->is_tensor() ? &ctx.input(i) : nullptr;
}

Shape OutShape(const ConvGeom& g) {
  Shape s{g.batch, g.out_channels};
  s.insert(s.end(), g.sp.out.begin(), g.sp.out.end());
  return s;
}

Status ConvIntegerCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor w, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(ConvGeom g, PlanConv(ctx, x.shape(), w.shape()));
  auto xv = CenteredX(x, OptionalInput(ctx, 2));
  if (!xv.ok()) return ctx.Annotate(xv.take_status());
  auto wv = CenteredW(w, OptionalInput(ctx, 3));
  if (!wv.ok()) return ctx.Annotate(wv.take_status());
  std::vector<int32_t> acc = ConvI32(g, *xv, *wv);
  Tensor y = ctx.AllocOutput(0, DType::kInt32, OutShape(g));
  std::copy(acc.begin(), acc.end(), y.mutable_data<int32_t>());
  return Status::Ok();
}

Status QLinearConvCompute(KernelContext& ctx) {
  Tensor in[8];
  for (size_t i = 0; i < 8; ++i) {
    VT_ASSIGN_OR_RETURN(in[i], ctx.RequireTensor(i));
  }
  const Tensor &x = in[0], &w = in[3], &y_zp = in[7];
  VT_ASSIGN_OR_RETURN(ConvGeom g, PlanConv(ctx, x.shape(), w.shape()));
  auto xv = CenteredX(x, &in[2]);
  if (!xv.ok()) return ctx.Annotate(xv.take_status());
  auto wv = CenteredW(w, &in[5]);
  if (!wv.ok()) return ctx.Annotate(wv.take_status());
  const std::vector<float> sx = ToFloatVector(in[1]), sw = ToFloatVector(in[4]);
  const std::vector<float> sy = ToFloatVector(in[6]);
  if (sx.size() != 1 || sy.size() != 1 || y_zp.numel() != 1)
    return ctx.Error("x_scale, y_scale and y_zero_point must be scalars");
  if (sw.size() != 1 && static_cast<int64_t>(sw.size()) != g.out_channels)
    return ctx.Error("w_scale must be a scalar or have M elements");
  std::vector<int32_t> bias(static_cast<size_t>(g.out_channels), 0);
  if (const Tensor* b = OptionalInput(ctx, 8)) {
    if (b->numel() != g.out_channels) return ctx.Error("B must have M elements");
    bias = ToInt32Vector(*b);
  }
  int64_t lo, hi;
  if (!QuantRange(y_zp.dtype(), &lo, &hi).ok() || y_zp.dtype() == DType::kInt32)
    return ctx.Unsupported(std::string("output dtype ") + DTypeName(y_zp.dtype()));
  const int64_t zy = y_zp.GetInt64(0);
  std::vector<int32_t> acc = ConvI32(g, *xv, *wv);
  const int64_t out_sz = NumElements(g.sp.out);
  Tensor y = ctx.AllocOutput(0, y_zp.dtype(), OutShape(g));
  Status st = DispatchElem<kSetInt>(y.dtype(), [&](auto tag) -> Status {
    using Q = decltype(tag);
    Q* py = y.mutable_data<Q>();
    for (int64_t e = 0; e < static_cast<int64_t>(acc.size()); ++e) {
      const int64_t m = out_sz > 0 ? (e / out_sz) % g.out_channels : 0;
      const float mult = sx[0] * sw[sw.size() == 1 ? 0 : static_cast<size_t>(m)] / sy[0];
      const float v = static_cast<float>(acc[e] + bias[static_cast<size_t>(m)]) * mult;
      py[e] = static_cast<Q>(RoundSaturate(v, zy, lo, hi));
    }
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  return Status::Ok();
}

VT_REGISTER_OP("", "ConvInteger", 10, kMaxOpset, ConvIntegerCompute);
VT_REGISTER_OP("", "QLinearConv", 10, kMaxOpset, QLinearConvCompute);

}  // namespace
}  // namespace vt::ops
