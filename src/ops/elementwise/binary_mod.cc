// Mod (ONNX Operators.md "Mod", opset 10+): elementwise remainder with broadcasting.
// fmod=0 (default, integers only): the result takes the divisor's sign (Python/numpy `%`).
// fmod=1: the result takes the dividend's sign (C fmod); required for floating types.
// x mod 0 gives 0 for integers (undefined in ONNX; must not trap) and NaN for floats (fmod).
#include <cmath>
#include <type_traits>

#include "ops/elementwise/binary_kernel.h"

namespace vt::ops {
namespace {

template <typename C>
C TruncRem(C x, C y) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::fmod(x, y);
  } else {
    if (y == 0) return 0;
    if constexpr (std::is_signed_v<C>) {
      if (y == -1) return 0;  // avoids INT_MIN % -1, which traps on x86
    }
    return static_cast<C>(x % y);
  }
}

template <typename C>
C FloorRem(C x, C y) {
  C r = TruncRem(x, y);
  if constexpr (std::is_signed_v<C>) {
    if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<C>(r + y);
  }
  return r;
}

Status ModCompute(KernelContext& ctx) {
  const bool fmod = ctx.node().GetInt("fmod", 0) != 0;
  if (!fmod && ctx.has_input(0) && ctx.input_value(0)->is_tensor() &&
      IsFloatDType(ctx.input(0).dtype()))
    return ctx.Error("attribute fmod must be 1 for floating-point inputs");
  return BinarySame<kSetNumeric>(ctx, [fmod](auto tag) {
    using C = decltype(tag);
    return [fmod](C x, C y) -> C { return fmod ? TruncRem(x, y) : FloorRem(x, y); };
  });
}

VT_REGISTER_OP("", "Mod", 10, kMaxOpset, ModCompute);

}  // namespace
}  // namespace vt::ops
