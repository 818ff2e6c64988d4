// Elementwise math: Abs, Neg, Reciprocal, Sqrt, Exp, Log, Floor, Ceil, Round, Sign, Erf, the
// trigonometric and hyperbolic functions, Not, BitwiseNot, IsNaN, IsInf
// (ONNX Operators.md, one section per op). Float16/bfloat16 compute in float.
#include <cmath>
#include <type_traits>

#include "ops/elementwise/unary_kernel.h"

#include "vtensor/layout/minifloat.h"

namespace vt::ops {
namespace {

// Two's-complement negation without signed-overflow UB (INT_MIN stays INT_MIN, as in numpy).
template <typename T>
T WrapNeg(T v) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(U{0} - static_cast<U>(v));
  } else {
    return -v;
  }
}

Status AbsCompute(KernelContext& ctx) {
  return UnarySame<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C {
      if constexpr (std::is_floating_point_v<C>) return std::fabs(v);
      else if constexpr (std::is_signed_v<C>) return v < 0 ? WrapNeg(v) : v;
      else return v;
    };
  });
}

Status NegCompute(KernelContext& ctx) {
  return UnarySame<kSetAllFloat | kSetSigned>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C { return WrapNeg(v); };
  });
}

Status SignCompute(KernelContext& ctx) {
  return UnarySame<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    // NaN (and +-0) map to themselves.
    return [](C v) -> C {
      if constexpr (std::is_unsigned_v<C>) return v > 0 ? C(1) : C(0);
      else return v > C(0) ? C(1) : (v < C(0) ? C(-1) : v);
    };
  });
}

// Float-only ops: `F` is a callable template over the compute type.
#define VT_FLOAT_UNARY(NAME, EXPR)                                   \
  Status NAME##Compute(KernelContext& ctx) {                          \
    return UnarySame<kSetAllFloat>(ctx, [](auto tag) {                 \
      using C = decltype(tag);                                        \
      return [](C v) -> C { return EXPR; };                           \
    });                                                               \
  }

VT_FLOAT_UNARY(Reciprocal, C(1) / v)
VT_FLOAT_UNARY(Sqrt, std::sqrt(v))
VT_FLOAT_UNARY(Exp, std::exp(v))
VT_FLOAT_UNARY(Log, std::log(v))
VT_FLOAT_UNARY(Floor, std::floor(v))
VT_FLOAT_UNARY(Ceil, std::ceil(v))
// Round half to even: nearbyint in the default rounding mode.
VT_FLOAT_UNARY(Round, std::nearbyint(v))
VT_FLOAT_UNARY(Sin, std::sin(v))
VT_FLOAT_UNARY(Cos, std::cos(v))
VT_FLOAT_UNARY(Tan, std::tan(v))
VT_FLOAT_UNARY(Asin, std::asin(v))
VT_FLOAT_UNARY(Acos, std::acos(v))
VT_FLOAT_UNARY(Atan, std::atan(v))
VT_FLOAT_UNARY(Sinh, std::sinh(v))
VT_FLOAT_UNARY(Cosh, std::cosh(v))
VT_FLOAT_UNARY(Asinh, std::asinh(v))
VT_FLOAT_UNARY(Acosh, std::acosh(v))
VT_FLOAT_UNARY(Atanh, std::atanh(v))
#undef VT_FLOAT_UNARY

// Erf-9 accepts every numeric type; integers go through double and truncate back.
Status ErfCompute(KernelContext& ctx) {
  return UnarySame<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C {
      if constexpr (std::is_floating_point_v<C>) return std::erf(v);
      else return static_cast<C>(std::erf(static_cast<double>(v)));
    };
  });
}

Status NotCompute(KernelContext& ctx) {
  return UnarySame<kSetBool>(ctx, [](auto) { return [](bool v) -> bool { return !v; }; });
}

Status BitwiseNotCompute(KernelContext& ctx) {
  return UnarySame<kSetInt>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C { return static_cast<C>(~v); };
  });
}

// IsNaN / IsInf of a float8 tensor (opset 20): each code decoded to float (layout/minifloat.h).
template <typename Pred>
Status MiniFloatToBool(KernelContext& ctx, const Tensor& x0, Pred pred) {
  const Tensor x = x0.Contiguous();
  const auto* px = static_cast<const uint8_t*>(x.raw_data());
  Tensor y = ctx.AllocOutput(0, DType::kBool, x.shape());
  auto* py = y.mutable_data<uint8_t>();
  for (int64_t i = 0; i < x.numel(); ++i) py[i] = pred(MiniFloatToFloat(x.dtype(), px[i])) ? 1 : 0;
  return Status::Ok();
}

Status IsNaNCompute(KernelContext& ctx) {
  auto pred = [](auto v) { return std::isnan(v); };
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  if (IsFloat8DType(x.dtype())) return MiniFloatToBool(ctx, x, pred);
  return UnaryToBool<kSetAllFloat>(ctx, pred);
}

Status IsInfCompute(KernelContext& ctx) {
  const bool neg = ctx.node().GetInt("detect_negative", 1) != 0;
  const bool pos = ctx.node().GetInt("detect_positive", 1) != 0;
  auto pred = [neg, pos](auto v) { return std::isinf(v) && (v > 0 ? pos : neg); };
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  if (IsFloat8DType(x.dtype())) return MiniFloatToBool(ctx, x, pred);
  return UnaryToBool<kSetAllFloat>(ctx, pred);
}

VT_REGISTER_OP("", "Abs", 1, kMaxOpset, AbsCompute);
VT_REGISTER_OP("", "Neg", 1, kMaxOpset, NegCompute);
VT_REGISTER_OP("", "Sign", 9, kMaxOpset, SignCompute);
VT_REGISTER_OP("", "Reciprocal", 1, kMaxOpset, ReciprocalCompute);
VT_REGISTER_OP("", "Sqrt", 1, kMaxOpset, SqrtCompute);
VT_REGISTER_OP("", "Exp", 1, kMaxOpset, ExpCompute);
VT_REGISTER_OP("", "Log", 1, kMaxOpset, LogCompute);
VT_REGISTER_OP("", "Floor", 1, kMaxOpset, FloorCompute);
VT_REGISTER_OP("", "Ceil", 1, kMaxOpset, CeilCompute);
VT_REGISTER_OP("", "Round", 11, kMaxOpset, RoundCompute);
VT_REGISTER_OP("", "Sin", 7, kMaxOpset, SinCompute);
VT_REGISTER_OP("", "Cos", 7, kMaxOpset, CosCompute);
VT_REGISTER_OP("", "Tan", 7, kMaxOpset, TanCompute);
VT_REGISTER_OP("", "Asin", 7, kMaxOpset, AsinCompute);
VT_REGISTER_OP("", "Acos", 7, kMaxOpset, AcosCompute);
VT_REGISTER_OP("", "Atan", 7, kMaxOpset, AtanCompute);
VT_REGISTER_OP("", "Sinh", 9, kMaxOpset, SinhCompute);
VT_REGISTER_OP("", "Cosh", 9, kMaxOpset, CoshCompute);
VT_REGISTER_OP("", "Asinh", 9, kMaxOpset, AsinhCompute);
VT_REGISTER_OP("", "Acosh", 9, kMaxOpset, AcoshCompute);
VT_REGISTER_OP("", "Atanh", 9, kMaxOpset, AtanhCompute);
VT_REGISTER_OP("", "Erf", 9, kMaxOpset, ErfCompute);
VT_REGISTER_OP("", "Not", 1, kMaxOpset, NotCompute);
VT_REGISTER_OP("", "BitwiseNot", 18, kMaxOpset, BitwiseNotCompute);
VT_REGISTER_OP("", "IsNaN", 9, kMaxOpset, IsNaNCompute);
VT_REGISTER_OP("", "IsInf", 10, kMaxOpset, IsInfCompute);

}  // namespace
}  // namespace vt::ops
