// Add, Sub, Mul, Div (ONNX Operators.md; multidirectional broadcasting from opset 7, the
// `broadcast`/`axis` attributes before). All numeric dtypes; float16/bfloat16 compute in float.
// Integer division truncates toward zero; x / 0 gives 0 and INT_MIN / -1 wraps (ONNX leaves
// both undefined; neither may trap here).
#include <type_traits>

#include "ops/elementwise/binary_kernel.h"

namespace vt::ops {
namespace {

Status AddCompute(KernelContext& ctx) {
  return BinarySame<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C { return WrapAdd(x, y); };
  });
}

Status SubCompute(KernelContext& ctx) {
  return BinarySame<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C { return WrapSub(x, y); };
  });
}

Status MulCompute(KernelContext& ctx) {
  return BinarySame<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C { return WrapMul(x, y); };
  });
}

Status DivCompute(KernelContext& ctx) {
  return BinarySame<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C {
      if constexpr (std::is_integral_v<C>) {
        if (y == 0) return 0;
        if constexpr (std::is_signed_v<C>) {
          if (y == -1) return WrapSub(C(0), x);
        }
      }
      return static_cast<C>(x / y);
    };
  });
}

VT_REGISTER_OP("", "Add", 1, kMaxOpset, AddCompute);
VT_REGISTER_OP("", "Sub", 1, kMaxOpset, SubCompute);
VT_REGISTER_OP("", "Mul", 1, kMaxOpset, MulCompute);
VT_REGISTER_OP("", "Div", 1, kMaxOpset, DivCompute);

}  // namespace
}  // namespace vt::ops
