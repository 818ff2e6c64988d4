// Pointwise activations: Relu, LeakyRelu, Elu, Selu, Celu, Sigmoid, HardSigmoid, HardSwish,
// Softplus, Softsign, ThresholdedRelu, Shrink, Tanh, Mish, Gelu (ONNX Operators.md, one section
// per op; attribute defaults from the spec). float32 uses the vectorisable fastmath exp family,
// double uses libm, float16/bfloat16 compute in float. NaN inputs give NaN.
#include <cmath>
#include <type_traits>

#include "ops/common/row_kernels.h"
#include "ops/contrib/gelu_ops.h"
#include "ops/elementwise/cast.h"
#include "ops/elementwise/unary_fast_math.h"
#include "ops/elementwise/unary_kernel.h"

namespace vt::ops {
namespace {

template <typename C>
C Expm1(C x) {
  if constexpr (std::is_same_v<C, float>) return fastmath::Expm1(x);
  else return std::expm1(x);
}

template <typename C>
C SigmoidOf(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return fastmath::Sigmoid(x);
  } else {
    const C e = std::exp(-std::fabs(x));
    const C s = C(1) / (C(1) + e);
    return x >= 0 ? s : (x < 0 ? e * s : x);
  }
}

template <typename C>
C TanhOf(C x) {
  if constexpr (std::is_same_v<C, float>) return fastmath::Tanh(x);
  else return std::tanh(x);
}

// log(1 + e^x) without overflow for large x.
template <typename C>
C SoftplusOf(C x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

float Attr(const KernelContext& ctx, const char* name, float def) {
  return ctx.node().GetFloat(name, def);
}

Status ReluCompute(KernelContext& ctx) {
  // Relu-14 adds the signed integer types.
  return UnarySame<kSetAllFloat | kSetSigned>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C { return v < C(0) ? C(0) : v; };
  });
}

Status LeakyReluCompute(KernelContext& ctx) {
  const float alpha = Attr(ctx, "alpha", 0.01f);
  return UnarySame<kSetAllFloat>(ctx, [alpha](auto tag) {
    using C = decltype(tag);
    return [a = static_cast<C>(alpha)](C v) -> C {
      const C s = v * a;
      return v < C(0) ? s : v;
    };
  });
}

Status EluCompute(KernelContext& ctx) {
  const float alpha = Attr(ctx, "alpha", 1.0f);
  return UnarySame<kSetAllFloat>(ctx, [alpha](auto tag) {
    using C = decltype(tag);
    return [a = static_cast<C>(alpha)](C v) -> C {
      const C n = a * Expm1(v);
      return v < C(0) ? n : v;
    };
  });
}

Status SeluCompute(KernelContext& ctx) {
  const float alpha = Attr(ctx, "alpha", 1.67326319217681884765625f);
  const float gamma = Attr(ctx, "gamma", 1.05070102214813232421875f);
  return UnarySame<kSetAllFloat>(ctx, [alpha, gamma](auto tag) {
    using C = decltype(tag);
    return [a = static_cast<C>(alpha), g = static_cast<C>(gamma)](C v) -> C {
      const C n = g * (a * Expm1(v));
      const C p = g * v;
      return v <= C(0) ? n : p;
    };
  });
}

Status CeluCompute(KernelContext& ctx) {
  const float alpha = Attr(ctx, "alpha", 1.0f);
  if (alpha == 0.0f) return ctx.Error("alpha must not be 0");
  return UnarySame<kSetAllFloat>(ctx, [alpha](auto tag) {
    using C = decltype(tag);
    return [a = static_cast<C>(alpha)](C v) -> C {
      const C n = a * Expm1(v / a);
      return v < C(0) ? n : v;
    };
  });
}

Status SigmoidCompute(KernelContext& ctx) {
  return UnarySame<kSetAllFloat>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C { return SigmoidOf(v); };
  });
}

Status TanhCompute(KernelContext& ctx) {
  return UnarySame<kSetAllFloat>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C { return TanhOf(v); };
  });
}

// max(0, min(1, alpha * x + beta)); comparisons written so NaN passes through.
template <typename C>
C HardSigmoidOf(C v, C alpha, C beta) {
  C y = alpha * v + beta;
  y = y < C(0) ? C(0) : y;
  y = y > C(1) ? C(1) : y;
  return y;
}

Status HardSigmoidCompute(KernelContext& ctx) {
  const float alpha = Attr(ctx, "alpha", 0.2f);
  const float beta = Attr(ctx, "beta", 0.5f);
  return UnarySame<kSetAllFloat>(ctx, [alpha, beta](auto tag) {
    using C = decltype(tag);
    return [a = static_cast<C>(alpha), b = static_cast<C>(beta)](C v) -> C {
      return HardSigmoidOf(v, a, b);
    };
  });
}

Status HardSwishCompute(KernelContext& ctx) {
  // x * HardSigmoid(x) with alpha = 1/6, beta = 0.5 (the schema's function body).
  return UnarySame<kSetAllFloat>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C { return v * HardSigmoidOf(v, static_cast<C>(1.0f / 6.0f), C(0.5)); };
  });
}

Status SoftplusCompute(KernelContext& ctx) {
  return UnarySame<kSetAllFloat>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C { return SoftplusOf(v); };
  });
}

Status SoftsignCompute(KernelContext& ctx) {
  return UnarySame<kSetAllFloat>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C { return v / (C(1) + std::fabs(v)); };
  });
}

Status ThresholdedReluCompute(KernelContext& ctx) {
  const float alpha = Attr(ctx, "alpha", 1.0f);
  return UnarySame<kSetAllFloat>(ctx, [alpha](auto tag) {
    using C = decltype(tag);
    return [a = static_cast<C>(alpha)](C v) -> C { return v > a ? v : (v <= a ? C(0) : v); };
  });
}

Status ShrinkCompute(KernelContext& ctx) {
  const double lambd = Attr(ctx, "lambd", 0.5f);
  const double bias = Attr(ctx, "bias", 0.0f);
  // Shrink accepts every numeric type; integers are evaluated in double and truncated back.
  return UnarySame<kSetNumeric>(ctx, [lambd, bias](auto tag) {
    using C = decltype(tag);
    return [lambd, bias](C v) -> C {
      const double d = static_cast<double>(v);
      const double r = d < -lambd ? d + bias : (d > lambd ? d - bias : (d == d ? 0.0 : d));
      if constexpr (std::is_integral_v<C>) return FloatToInt<C>(r);
      else return static_cast<C>(r);
    };
  });
}

Status MishCompute(KernelContext& ctx) {
  return UnarySame<kSetAllFloat>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C v) -> C { return v * TanhOf(SoftplusOf(v)); };
  });
}

// Gelu runs on the GELU kernel family (kernels/activation/gelu_ukernel.h), whose erf form keeps
// its relative accuracy in the negative tail (0.5 x (1 + erf(x / sqrt 2)) rounds to 0 there).
class GeluKernel final : public OpKernel {
 public:
  explicit GeluKernel(const KernelInit& init) : row_(GeluRowFor(init)) {}

  Status Compute(KernelContext& ctx) const override {
    const std::string approx = ctx.node().GetString("approximate", "none");
    if (approx != "none" && approx != "tanh")
      return ctx.Error("attribute approximate must be \"none\" or \"tanh\", got \"" + approx + "\"");
    VT_ASSIGN_OR_RETURN(const Tensor* x, TensorArg(ctx, 0));
    const auto kind = approx == "tanh" ? kernels::GeluKind::kTanh : kernels::GeluKind::kErf;
    return RunGelu(ctx, row_, kind, 1.0f, *x, nullptr);
  }

 private:
  const kernels::GeluKernel& row_;
};

Expected<std::unique_ptr<OpKernel>> MakeGelu(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new GeluKernel(init));
}

VT_REGISTER_OP("", "Relu", 1, kMaxOpset, ReluCompute);
VT_REGISTER_OP("", "LeakyRelu", 1, kMaxOpset, LeakyReluCompute);
VT_REGISTER_OP("", "Elu", 1, kMaxOpset, EluCompute);
VT_REGISTER_OP("", "Selu", 1, kMaxOpset, SeluCompute);
VT_REGISTER_OP("", "Celu", 12, kMaxOpset, CeluCompute);
VT_REGISTER_OP("", "Sigmoid", 1, kMaxOpset, SigmoidCompute);
VT_REGISTER_OP("", "Tanh", 1, kMaxOpset, TanhCompute);
VT_REGISTER_OP("", "HardSigmoid", 1, kMaxOpset, HardSigmoidCompute);
VT_REGISTER_OP("", "HardSwish", 14, kMaxOpset, HardSwishCompute);
VT_REGISTER_OP("", "Softplus", 1, kMaxOpset, SoftplusCompute);
VT_REGISTER_OP("", "Softsign", 1, kMaxOpset, SoftsignCompute);
VT_REGISTER_OP("", "ThresholdedRelu", 10, kMaxOpset, ThresholdedReluCompute);
VT_REGISTER_OP("", "Shrink", 9, kMaxOpset, ShrinkCompute);
VT_REGISTER_OP("", "Mish", 18, kMaxOpset, MishCompute);
VT_REGISTER_OP("", "Gelu", 20, kMaxOpset, KernelFactory(MakeGelu));

}  // namespace
}  // namespace vt::ops
