// Element types of operator kernels in one place: the compute type of each storage type
// (ElemTraits / ComputeOf: 16-bit floats compute in float, everything else in itself) and the
// one dtype -> C++ type dispatch (DispatchElem over families of dtypes; DispatchBySize for
// data movement that only needs an element's width).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "vtensor/base/status.h"
#include "vtensor/layout/dtype.h"

namespace vt::ops {

// Storage type S -> compute type: Load widens a stored element, Store narrows a result back
// (round to nearest even for Float16 / BFloat16).
template <typename S>
struct ElemTraits {
  using Compute = S;
  static Compute Load(S v) { return v; }
  static S Store(Compute v) { return v; }
};
template <>
struct ElemTraits<Float16> {
  using Compute = float;
  static float Load(Float16 v) { return HalfToFloat(v.bits); }
  static Float16 Store(float v) { return Float16{FloatToHalf(v)}; }
};
template <>
struct ElemTraits<BFloat16> {
  using Compute = float;
  static float Load(BFloat16 v) { return BFloat16ToFloat(v.bits); }
  static BFloat16 Store(float v) { return BFloat16{FloatToBFloat16(v)}; }
};

// The type arithmetic on a stored S happens in.
template <typename S>
using ComputeOf = typename ElemTraits<S>::Compute;

template <typename S>
inline constexpr bool kIsHalf = std::is_same_v<S, Float16> || std::is_same_v<S, BFloat16>;

// Families of dtypes a kernel instantiates for.
enum TypeSet : unsigned {
  kSetFloat = 1u << 0,     // float32, float64
  kSetHalf = 1u << 1,      // float16, bfloat16
  kSetSigned = 1u << 2,    // int8..int64
  kSetUnsigned = 1u << 3,  // uint8..uint64
  kSetBool = 1u << 4,
  kSetString = 1u << 5,
};
inline constexpr unsigned kSetAllFloat = kSetFloat | kSetHalf;
inline constexpr unsigned kSetInt = kSetSigned | kSetUnsigned;
// float32/float64 and every integer type: what a kernel without a 16-bit float path takes.
inline constexpr unsigned kSetFloatInt = kSetFloat | kSetInt;
inline constexpr unsigned kSetNumeric = kSetAllFloat | kSetInt;
inline constexpr unsigned kSetAll = kSetNumeric | kSetBool | kSetString;

// Calls f(S{}) with the storage type of `t` (float, double, Float16, BFloat16, intN_t, uintN_t,
// bool, std::string) when t's family is in `Set` (only those are instantiated) and returns its
// Status. Errors: Unimplemented naming the dtype.
template <unsigned Set, typename F>
Status DispatchElem(DType t, F&& f) {
  const auto unsupported = [&]() {
    return Unimplemented(std::string("dtype ") + DTypeName(t) + " is not supported");
  };
#define VT_ELEM_CASE(DT, T, SET)                     \
  case DT:                                           \
    if constexpr ((Set & (SET)) != 0) return f(T{}); /* NOLINT(bugprone-macro-parentheses): a type */ \
    return unsupported();
  switch (t) {
    VT_ELEM_CASE(DType::kFloat32, float, kSetFloat)
    VT_ELEM_CASE(DType::kFloat64, double, kSetFloat)
    VT_ELEM_CASE(DType::kFloat16, Float16, kSetHalf)
    VT_ELEM_CASE(DType::kBFloat16, BFloat16, kSetHalf)
    VT_ELEM_CASE(DType::kInt8, int8_t, kSetSigned)
    VT_ELEM_CASE(DType::kInt16, int16_t, kSetSigned)
    VT_ELEM_CASE(DType::kInt32, int32_t, kSetSigned)
    VT_ELEM_CASE(DType::kInt64, int64_t, kSetSigned)
    VT_ELEM_CASE(DType::kUInt8, uint8_t, kSetUnsigned)
    VT_ELEM_CASE(DType::kUInt16, uint16_t, kSetUnsigned)
    VT_ELEM_CASE(DType::kUInt32, uint32_t, kSetUnsigned)
    VT_ELEM_CASE(DType::kUInt64, uint64_t, kSetUnsigned)
    VT_ELEM_CASE(DType::kBool, bool, kSetBool)
    VT_ELEM_CASE(DType::kString, std::string, kSetString)
    default:
      return unsupported();
  }
#undef VT_ELEM_CASE
}

// Every fixed-size dtype by element size (for data movement ops): f(T{}) with an unsigned
// integer of the element's width (a 16-byte struct for complex128), or std::string for
// strings. Errors: Unimplemented for dtypes without a size.
template <typename F>
Status DispatchBySize(DType t, F&& f) {
  if (t == DType::kString) return f(std::string{});
  switch (DTypeSize(t)) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    case 16: {
      struct U128 {
        uint64_t a, b;
      };
      return f(U128{});
    }
    default: return Unimplemented(std::string("dtype ") + DTypeName(t) + " is not supported");
  }
}

}  // namespace vt::ops
