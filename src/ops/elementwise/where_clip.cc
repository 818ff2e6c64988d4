// Where (opset 9+): out = cond ? X : Y with cond, X, Y broadcast together; any element type
// (moved bit-for-bit, strings copied).
// Clip: y = min(max(x, lo), hi). Opsets 1-10 take float attributes min/max; opset 11+ takes
// optional scalar inputs min (1) and max (2); 12+ adds the integer types. When lo > hi every
// element becomes hi (max is applied last, as in the spec's reference). NaN stays NaN.
#include <limits>
#include <type_traits>

#include "ops/elementwise/binary_kernel.h"

namespace vt::ops {
namespace {

Status WhereCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor c, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor y, ctx.RequireTensor(2));
  if (c.dtype() != DType::kBool)
    return ctx.Error(std::string("condition must be bool, got ") + DTypeName(c.dtype()));
  VT_RETURN_IF_ERROR(RequireSameDType(ctx, x, y));
  auto out = BroadcastShapes({c.shape(), x.shape(), y.shape()});
  if (!out.ok()) return ctx.Annotate(out.take_status());
  Status st = DispatchBySize(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    Tensor z = ctx.AllocOutput(0, x.dtype(), *out);
    return Zip3Tensors<bool, T, T, T>(
        c, x, y, z, ctx.threads(), [](bool k, const T& a, const T& b) -> T { return k ? a : b; });
  });
  return ctx.Annotate(std::move(st));
}

// Reads the scalar bound at input `i` into `out` when present.
template <typename S>
Status ReadBound(const KernelContext& ctx, size_t i, const Tensor& x, ComputeOf<S>& out) {
  if (!ctx.has_input(i)) return Status::Ok();
  VT_ASSIGN_OR_RETURN(Tensor b, ctx.RequireTensor(i));
  if (b.dtype() != x.dtype())
    return ctx.Error(std::string(i == 1 ? "min" : "max") + " has dtype " + DTypeName(b.dtype()) +
                     ", input has " + DTypeName(x.dtype()));
  if (b.numel() != 1)
    return ctx.Error(std::string(i == 1 ? "min" : "max") + " must be a scalar, got shape " +
                     ShapeToString(b.shape()));
  out = ElemTraits<S>::Load(*b.data<S>());
  return Status::Ok();
}

Status ClipCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  const bool legacy = ctx.opset() < 11;
  Status st = DispatchElem<kSetNumeric>(x.dtype(), [&](auto tag) -> Status {
    using S = decltype(tag);
    using C = ComputeOf<S>;
    C lo = std::numeric_limits<C>::lowest(), hi = std::numeric_limits<C>::max();
    if constexpr (std::is_floating_point_v<C>) {
      lo = -std::numeric_limits<C>::infinity();
      hi = std::numeric_limits<C>::infinity();
    }
    if (legacy) {
      if constexpr (std::is_floating_point_v<C>) {
        if (ctx.node().FindAttr("min")) lo = static_cast<C>(ctx.node().GetFloat("min", 0));
        if (ctx.node().FindAttr("max")) hi = static_cast<C>(ctx.node().GetFloat("max", 0));
      }
    } else {
      VT_RETURN_IF_ERROR(ReadBound<S>(ctx, 1, x, lo));
      VT_RETURN_IF_ERROR(ReadBound<S>(ctx, 2, x, hi));
    }
    Tensor y = ctx.AllocOutput(0, x.dtype(), x.shape());
    return MapTensor<S, S>(x, y, ctx.threads(), LiftUnary<S>([lo, hi](C v) -> C {
                             v = v < lo ? lo : v;
                             v = v > hi ? hi : v;
                             return v;
                           }));
  });
  return ctx.Annotate(std::move(st));
}

VT_REGISTER_OP("", "Where", 9, kMaxOpset, WhereCompute);
VT_REGISTER_OP("", "Clip", 1, kMaxOpset, ClipCompute);

}  // namespace
}  // namespace vt::ops
