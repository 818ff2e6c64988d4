// Driver for elementwise unary kernels (unary_math.cc, activation.cc): one input of any layout,
// one contiguous output of the same shape.
#pragma once

#include <string>

#include "ops/elementwise/binary_broadcast.h"

namespace vt::ops {

// Input i as a tensor without copying it (a Tensor copy allocates its shape and strides).
// Errors: InvalidArgument naming the node when absent or not a tensor.
inline Expected<const Tensor*> TensorArg(const KernelContext& ctx, size_t i) {
  const Value* v = ctx.input_value(i);
  if (v != nullptr && v->is_tensor()) return &v->tensor();
  if (v == nullptr) return ctx.Error("input " + std::to_string(i) + " is required");
  return ctx.Error("input " + std::to_string(i) + " must be a tensor");
}

// y = op(x) with y of x's dtype. `make_op(C{})` returns the element op on the compute type C
// of x's storage type (float for float16/bfloat16, which are rounded back to nearest even).
// Errors: Unimplemented when x's dtype family is not in `Set`.
template <unsigned Set, typename MakeOp>
Status UnarySame(KernelContext& ctx, MakeOp&& make_op) {
  VT_ASSIGN_OR_RETURN(const Tensor* xp, TensorArg(ctx, 0));
  const Tensor& x = *xp;
  Status st = DispatchElem<Set>(x.dtype(), [&](auto tag) -> Status {
    using S = decltype(tag);
    // MapTensor reads each element before writing it: y may take x's buffer when x dies here.
    Tensor y = ctx.AllocOutputOver(0, x.dtype(), x.shape(), {0});
    return MapTensor<S, S>(x, y, ctx.threads(), LiftUnary<S>(make_op(ComputeOf<S>{})));
  });
  return ctx.Annotate(std::move(st));
}

// y = pred(x) with a bool output (IsNaN, IsInf). `pred` takes the compute type.
template <unsigned Set, typename Pred>
Status UnaryToBool(KernelContext& ctx, Pred&& pred) {
  VT_ASSIGN_OR_RETURN(const Tensor* xp, TensorArg(ctx, 0));
  const Tensor& x = *xp;
  Status st = DispatchElem<Set>(x.dtype(), [&](auto tag) -> Status {
    using S = decltype(tag);
    Tensor y = ctx.AllocOutput(0, DType::kBool, x.shape());
    return MapTensor<S, bool>(x, y, ctx.threads(), [&pred](S v) -> bool {
      return pred(ElemTraits<S>::Load(v));
    });
  });
  return ctx.Annotate(std::move(st));
}

}  // namespace vt::ops
