// Pow (ONNX Operators.md "Pow"): z = x ^ y with multidirectional broadcasting; from opset 12 the
// exponent may have any numeric dtype and z has the base's dtype.
//
// Evaluation domain: a floating base computes in its compute type (float for float16/bfloat16/
// float32, double for float64) with the exponent converted to it; an integer base with an
// integer exponent uses exact wrapping integer exponentiation; an integer base with a floating
// exponent computes in double and truncates toward zero (numpy's pow(...).astype(int)).
// A scalar float exponent of 0.5, 1, 2, 3 or -1 takes a multiply/sqrt fast path.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/elementwise/binary_kernel.h"
#include "ops/elementwise/cast.h"

namespace vt::ops {
namespace {

// x^e for integers; negative exponents give 1 / x^|e| truncated (0 unless |x| == 1).
template <typename T>
T IntPow(T x, int64_t e) {
  if (e < 0) {
    if (x == 1) return 1;
    if constexpr (std::is_signed_v<T>) {
      if (x == -1) return (e & 1) ? T(-1) : T(1);
    }
    return 0;
  }
  using U = std::make_unsigned_t<T>;
  U base = static_cast<U>(x), r = 1;
  uint64_t n = static_cast<uint64_t>(e);
  while (n) {
    if (n & 1) r = static_cast<U>(r * base);
    base = static_cast<U>(base * base);
    n >>= 1;
  }
  return static_cast<T>(r);
}

// pow(x, e) with e a compile-time-unknown scalar; returns false when no fast path applies.
template <typename S, typename C>
bool ScalarExponentFastPath(const Tensor& x, C e, Tensor& z, int threads, Status& st) {
  auto run = [&](auto op) {
    st = MapTensor<S, S>(x, z, threads, LiftUnary<S>(op));
    return true;
  };
  if (e == C(2)) return run([](C v) -> C { return v * v; });
  if (e == C(1)) return run([](C v) -> C { return v; });
  if (e == C(3)) return run([](C v) -> C { return v * v * v; });
  if (e == C(-1)) return run([](C v) -> C { return C(1) / v; });
  if (e == C(0.5)) {
    // pow(-0, 0.5) = +0 and pow(-inf, 0.5) = +inf, unlike sqrt.
    return run([](C v) -> C {
      const C r = std::sqrt(v) + C(0);
      return v == -std::numeric_limits<C>::infinity() ? std::numeric_limits<C>::infinity() : r;
    });
  }
  return false;
}

template <typename S>
Status PowFloatBase(KernelContext& ctx, const BinaryOperands& in) {
  using C = ComputeOf<S>;
  constexpr DType kExpType = std::is_same_v<C, double> ? DType::kFloat64 : DType::kFloat32;
  VT_ASSIGN_OR_RETURN(Tensor e, CastTo(in.b(), kExpType, ctx.threads()));
  Tensor z = ctx.AllocOutput(0, in.a().dtype(), in.out());
  if (e.numel() == 1 && in.out() == in.a().shape()) {
    Status st;
    if (ScalarExponentFastPath<S, C>(in.a(), e.data<C>()[0], z, ctx.threads(), st)) return st;
  }
  if constexpr (kIsHalf<S>) {
    return ZipTensors<S, float, S>(in.a(), e, z, ctx.threads(), [](S v, float p) {
      return ElemTraits<S>::Store(std::pow(ElemTraits<S>::Load(v), p));
    });
  } else {
    return ZipTensors<S, C, S>(in.a(), e, z, ctx.threads(),
                               [](C v, C p) -> C { return std::pow(v, p); });
  }
}

template <typename S>
Status PowIntBase(KernelContext& ctx, const BinaryOperands& in) {
  Tensor z = ctx.AllocOutput(0, in.a().dtype(), in.out());
  if (IsIntegerDType(in.b().dtype()) || in.b().dtype() == DType::kBool) {
    VT_ASSIGN_OR_RETURN(Tensor e, CastTo(in.b(), DType::kInt64, ctx.threads()));
    return ZipTensors<S, int64_t, S>(in.a(), e, z, ctx.threads(),
                                     [](S v, int64_t p) -> S { return IntPow(v, p); });
  }
  VT_ASSIGN_OR_RETURN(Tensor e, CastTo(in.b(), DType::kFloat64, ctx.threads()));
  return ZipTensors<S, double, S>(in.a(), e, z, ctx.threads(), [](S v, double p) -> S {
    return FloatToInt<S>(std::pow(static_cast<double>(v), p));
  });
}

Status PowCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(BinaryOperands in, PrepareBinary(ctx));
  if (ctx.opset() < 12) VT_RETURN_IF_ERROR(RequireSameDType(ctx, in.a(), in.b()));
  if (!IsFloatDType(in.b().dtype()) && !IsIntegerDType(in.b().dtype()))
    return ctx.Unsupported(std::string("exponent dtype ") + DTypeName(in.b().dtype()) +
                           " is not supported");
  Status st = DispatchElem<kSetNumeric>(in.a().dtype(), [&](auto tag) -> Status {
    using S = decltype(tag);
    if constexpr (std::is_integral_v<S>) return PowIntBase<S>(ctx, in);
    else return PowFloatBase<S>(ctx, in);
  });
  return ctx.Annotate(std::move(st));
}

VT_REGISTER_OP("", "Pow", 1, kMaxOpset, PowCompute);

}  // namespace
}  // namespace vt::ops
