// Add, Sub, Mul, Div with numpy broadcasting (ONNX Operators.md "Broadcasting").
#include <cmath>

#include "ops/op_util.h"

namespace vt::ops {
namespace {

template <typename T, typename Op>
void BinaryLoop(const Tensor& a, const Tensor& b, Tensor& out, Op op) {
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* po = out.mutable_data<T>();
  const int64_t n = out.numel();
  if (a.numel() == n && b.numel() == n) {
    for (int64_t i = 0; i < n; ++i) po[i] = op(pa[i], pb[i]);
  } else if (b.numel() == 1 && a.numel() == n) {
    const T s = pb[0];
    for (int64_t i = 0; i < n; ++i) po[i] = op(pa[i], s);
  } else if (a.numel() == 1 && b.numel() == n) {
    const T s = pa[0];
    for (int64_t i = 0; i < n; ++i) po[i] = op(s, pb[i]);
  } else {
    auto as = BroadcastStrides(a.shape(), out.shape());
    auto bs = BroadcastStrides(b.shape(), out.shape());
    ForEachBroadcast2(out.shape(), as, bs,
                      [&](int64_t o, int64_t ia, int64_t ib) { po[o] = op(pa[ia], pb[ib]); });
  }
}

template <typename OpF>
Status Binary(KernelContext& ctx, OpF make_op) {
  VT_ASSIGN_OR_RETURN(Tensor a0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor b0, ctx.RequireTensor(1));
  if (a0.dtype() != b0.dtype())
    return ctx.Error(std::string("input dtypes differ: ") + DTypeName(a0.dtype()) + " vs " +
                     DTypeName(b0.dtype()));
  Tensor a = a0.Contiguous(), b = b0.Contiguous();
  auto shape = BroadcastShapes(a.shape(), b.shape());
  if (!shape.ok()) return ctx.Error(shape.status().message());
  DType dt = a.dtype();
  if (dt == DType::kFloat16 || dt == DType::kBFloat16) {
    Tensor af = CastTensor(a, DType::kFloat32), bf = CastTensor(b, DType::kFloat32);
    Tensor of = Tensor::Empty(DType::kFloat32, *shape);
    BinaryLoop<float>(af, bf, of, make_op(float{}));
    Tensor out = ctx.AllocOutput(0, dt, *shape);
    uint16_t* po = out.mutable_data<uint16_t>();
    const float* pf = of.data<float>();
    for (int64_t i = 0; i < out.numel(); ++i)
      po[i] = dt == DType::kFloat16 ? FloatToHalf(pf[i]) : FloatToBFloat16(pf[i]);
    return Status::Ok();
  }
  Tensor out = ctx.AllocOutput(0, dt, *shape);
  Status st = DispatchNumeric(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    BinaryLoop<T>(a, b, out, make_op(T{}));
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Unsupported(st.message());
  return Status::Ok();
}

Status AddCompute(KernelContext& ctx) {
  return Binary(ctx, [](auto tag) {
    using T = decltype(tag);
    return [](T x, T y) { return static_cast<T>(x + y); };
  });
}
Status SubCompute(KernelContext& ctx) {
  return Binary(ctx, [](auto tag) {
    using T = decltype(tag);
    return [](T x, T y) { return static_cast<T>(x - y); };
  });
}
Status MulCompute(KernelContext& ctx) {
  return Binary(ctx, [](auto tag) {
    using T = decltype(tag);
    return [](T x, T y) { return static_cast<T>(x * y); };
  });
}
Status DivCompute(KernelContext& ctx) {
  return Binary(ctx, [](auto tag) {
    using T = decltype(tag);
    return [](T x, T y) -> T {
      if constexpr (std::is_integral_v<T>) {
        if (y == 0) return 0;  // ONNX leaves integer division by zero undefined
      }
      return static_cast<T>(x / y);
    };
  });
}

VT_REGISTER_OP("", "Add", 1, kMaxOpset, AddCompute);
VT_REGISTER_OP("", "Sub", 1, kMaxOpset, SubCompute);
VT_REGISTER_OP("", "Mul", 1, kMaxOpset, MulCompute);
VT_REGISTER_OP("", "Div", 1, kMaxOpset, DivCompute);

}  // namespace
}  // namespace vt::ops
