// BitShift (opset 11, unsigned integers, attribute direction = "LEFT" | "RIGHT") and
// BitwiseAnd / BitwiseOr / BitwiseXor (opset 18, all integer types), with broadcasting.
// Shifting by the bit width or more gives 0 (C++ leaves it undefined).
#include <type_traits>

#include "ops/elementwise/binary_kernel.h"

namespace vt::ops {
namespace {

Status BitShiftCompute(KernelContext& ctx) {
  const std::string dir = ctx.node().GetString("direction", "");
  if (dir != "LEFT" && dir != "RIGHT")
    return ctx.Error("attribute direction must be \"LEFT\" or \"RIGHT\", got \"" + dir + "\"");
  const bool left = dir == "LEFT";
  return BinarySame<kSetUnsigned>(ctx, [left](auto tag) {
    using C = decltype(tag);
    return [left](C x, C s) -> C {
      if (s >= sizeof(C) * 8) return 0;
      return left ? static_cast<C>(x << s) : static_cast<C>(x >> s);
    };
  });
}

Status BitwiseAndCompute(KernelContext& ctx) {
  return BinarySame<kSetInt>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C { return static_cast<C>(x & y); };
  });
}

Status BitwiseOrCompute(KernelContext& ctx) {
  return BinarySame<kSetInt>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C { return static_cast<C>(x | y); };
  });
}

Status BitwiseXorCompute(KernelContext& ctx) {
  return BinarySame<kSetInt>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C { return static_cast<C>(x ^ y); };
  });
}

VT_REGISTER_OP("", "BitShift", 11, kMaxOpset, BitShiftCompute);
VT_REGISTER_OP("", "BitwiseAnd", 18, kMaxOpset, BitwiseAndCompute);
VT_REGISTER_OP("", "BitwiseOr", 18, kMaxOpset, BitwiseOrCompute);
VT_REGISTER_OP("", "BitwiseXor", 18, kMaxOpset, BitwiseXorCompute);

}  // namespace
}  // namespace vt::ops
