// Driver for elementwise binary kernels (arith, Mod, Pow, bitwise, comparisons, logic):
// operand preparation incl. the pre-opset-7 `broadcast`/`axis` attributes, and the common
// "same dtype in, same dtype / bool out" kernel shapes.
#pragma once

#include <type_traits>

#include "ops/elementwise/unary_kernel.h"

namespace vt::ops {

// Integer +, -, * in two's complement (wrapping instead of signed-overflow UB, like numpy);
// plain arithmetic for floating types.
template <typename T, typename F>
inline T Wrapping(T x, T y, F f) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(f(static_cast<U>(x), static_cast<U>(y)));
  } else {
    return static_cast<T>(f(x, y));
  }
}
template <typename T>
inline T WrapAdd(T x, T y) { return Wrapping(x, y, [](auto p, auto q) { return p + q; }); }
template <typename T>
inline T WrapSub(T x, T y) { return Wrapping(x, y, [](auto p, auto q) { return p - q; }); }
template <typename T>
inline T WrapMul(T x, T y) { return Wrapping(x, y, [](auto p, auto q) { return p * q; }); }

// Views of inputs 0 and 1 (no copies on the common path).
class BinaryOperands {
 public:
  const Tensor& a() const { return *a_; }
  const Tensor& b() const { return legacy_b_ ? b_view_ : *b_; }
  const Shape& out() const { return out_; }  // numpy broadcast of a and b

 private:
  friend Expected<BinaryOperands> PrepareBinary(const KernelContext& ctx);
  const Tensor* a_ = nullptr;
  const Tensor* b_ = nullptr;
  bool legacy_b_ = false;
  Tensor b_view_;  // B re-strided for a legacy `axis`
  Shape out_;
};

// Inputs 0 and 1 and their broadcast shape. Opsets < 7 (Add-6, Pow-1, Equal-1, ...) only
// broadcast with broadcast=1, aligning B's dims at `axis` of A when given (numpy right
// alignment otherwise); shapes are broadcast numpy-style in every case. Errors:
// InvalidArgument naming the node for a missing input, a bad axis or incompatible shapes.
Expected<BinaryOperands> PrepareBinary(const KernelContext& ctx);

// Both inputs must have one dtype. Errors: InvalidArgument naming the node and both dtypes.
Status RequireSameDType(const KernelContext& ctx, const Tensor& a, const Tensor& b);

// y = op(a, b) with y of the inputs' dtype. `make_op(C{})` returns the op on compute type C.
template <unsigned Set, typename MakeOp>
Status BinarySame(KernelContext& ctx, MakeOp&& make_op) {
  VT_ASSIGN_OR_RETURN(BinaryOperands in, PrepareBinary(ctx));
  VT_RETURN_IF_ERROR(RequireSameDType(ctx, in.a(), in.b()));
  Status st = DispatchElem<Set>(in.a().dtype(), [&](auto tag) -> Status {
    using S = decltype(tag);
    // ZipTensors reads each element before writing it: y may take the buffer of an input of
    // y's shape that dies here.
    Tensor y = ctx.AllocOutputOver(0, in.a().dtype(), in.out(), {0, 1});
    return ZipTensors<S, S, S>(in.a(), in.b(), y, ctx.threads(),
                               LiftBinary<S>(make_op(ComputeOf<S>{})));
  });
  return ctx.Annotate(std::move(st));
}

// y = op(a, b) with a bool output (comparisons, logic). Strings are passed by const reference.
template <unsigned Set, typename MakeOp>
Status BinaryToBool(KernelContext& ctx, MakeOp&& make_op) {
  VT_ASSIGN_OR_RETURN(BinaryOperands in, PrepareBinary(ctx));
  VT_RETURN_IF_ERROR(RequireSameDType(ctx, in.a(), in.b()));
  Status st = DispatchElem<Set>(in.a().dtype(), [&](auto tag) -> Status {
    using S = decltype(tag);
    Tensor y = ctx.AllocOutput(0, DType::kBool, in.out());
    auto op = make_op(ComputeOf<S>{});
    if constexpr (kIsHalf<S>) {
      return ZipTensors<S, S, bool>(in.a(), in.b(), y, ctx.threads(), [op](S x, S z) -> bool {
        return op(ElemTraits<S>::Load(x), ElemTraits<S>::Load(z));
      });
    } else {
      return ZipTensors<S, S, bool>(in.a(), in.b(), y, ctx.threads(), op);
    }
  });
  return ctx.Annotate(std::move(st));
}

}  // namespace vt::ops
