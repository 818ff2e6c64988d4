// Comparisons Equal, Greater, Less, GreaterOrEqual, LessOrEqual and logic And, Or, Xor
// (ONNX Operators.md), with broadcasting; outputs are bool. Equal also takes bool and string
// inputs; comparisons involving NaN are false (Equal(NaN, NaN) = false), as in IEEE/numpy.
#include <string>

#include "ops/elementwise/binary_kernel.h"

namespace vt::ops {
namespace {

Status EqualCompute(KernelContext& ctx) {
  return BinaryToBool<kSetAll>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](const C& x, const C& y) -> bool { return x == y; };
  });
}

Status GreaterCompute(KernelContext& ctx) {
  return BinaryToBool<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> bool { return x > y; };
  });
}

Status LessCompute(KernelContext& ctx) {
  return BinaryToBool<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> bool { return x < y; };
  });
}

Status GreaterOrEqualCompute(KernelContext& ctx) {
  return BinaryToBool<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> bool { return x >= y; };
  });
}

Status LessOrEqualCompute(KernelContext& ctx) {
  return BinaryToBool<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> bool { return x <= y; };
  });
}

Status AndCompute(KernelContext& ctx) {
  return BinaryToBool<kSetBool>(ctx,
                                [](auto) { return [](bool x, bool y) -> bool { return x && y; }; });
}

Status OrCompute(KernelContext& ctx) {
  return BinaryToBool<kSetBool>(ctx,
                                [](auto) { return [](bool x, bool y) -> bool { return x || y; }; });
}

Status XorCompute(KernelContext& ctx) {
  return BinaryToBool<kSetBool>(ctx,
                                [](auto) { return [](bool x, bool y) -> bool { return x != y; }; });
}

VT_REGISTER_OP("", "Equal", 1, kMaxOpset, EqualCompute);
VT_REGISTER_OP("", "Greater", 1, kMaxOpset, GreaterCompute);
VT_REGISTER_OP("", "Less", 1, kMaxOpset, LessCompute);
VT_REGISTER_OP("", "GreaterOrEqual", 12, kMaxOpset, GreaterOrEqualCompute);
VT_REGISTER_OP("", "LessOrEqual", 12, kMaxOpset, LessOrEqualCompute);
VT_REGISTER_OP("", "And", 1, kMaxOpset, AndCompute);
VT_REGISTER_OP("", "Or", 1, kMaxOpset, OrCompute);
VT_REGISTER_OP("", "Xor", 1, kMaxOpset, XorCompute);

}  // namespace
}  // namespace vt::ops
