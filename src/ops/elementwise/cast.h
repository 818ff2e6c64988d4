// Element type conversions (ONNX Operators.md "Cast", "CastLike"), shared with kernels that
// need a dtype change (Pow with mixed types, float16 helpers, ...).
//
// Numeric rules: float -> 16-bit float rounds to nearest even with a single rounding (double
// inputs go through round-to-odd float, so there is no double rounding); float -> integer
// truncates toward zero, NaN gives 0, values beyond int64/uint64 saturate and narrower
// integers wrap like a C cast through int64 (ONNX leaves out-of-range casts undefined);
// anything -> bool is `v != 0` (NaN -> true); bool -> number is 0/1.
// String rules: see FormatNumber / ParseNumber below.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "ops/elementwise/binary_broadcast.h"

namespace vt::ops {

// binary64 -> binary16 / bfloat16, round to nearest even, NaN/Inf kept.
uint16_t DoubleToHalf(double d);
uint16_t DoubleToBFloat16(double d);

// Float -> integer as documented above.
template <typename I, typename F>
inline I FloatToInt(F v) {
  static_assert(std::is_integral_v<I> && std::is_floating_point_v<F>);
  if (std::isnan(v)) return 0;
  if constexpr (std::is_same_v<I, uint64_t>) {
    if (v >= static_cast<F>(18446744073709551616.0)) return std::numeric_limits<uint64_t>::max();
    if (v >= static_cast<F>(9223372036854775808.0)) return static_cast<uint64_t>(v);
    if (v < static_cast<F>(-9223372036854775808.0)) return uint64_t{1} << 63;
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    int64_t w;
    if (v >= static_cast<F>(9223372036854775808.0)) w = std::numeric_limits<int64_t>::max();
    else if (v < static_cast<F>(-9223372036854775808.0)) w = std::numeric_limits<int64_t>::min();
    else w = static_cast<int64_t>(v);
    if constexpr (std::is_same_v<I, int64_t>) return w;
    else if constexpr (std::is_same_v<I, bool>) return w != 0;
    else return static_cast<I>(w);  // modular narrowing (C++20)
  }
}

// One element from storage type From to storage type To (see the rules above).
template <typename To, typename From>
inline To ConvertElem(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsHalf<From>) {
    return ConvertElem<To>(ElemTraits<From>::Load(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != static_cast<From>(0);
  } else if constexpr (std::is_same_v<To, Float16>) {
    if constexpr (std::is_same_v<From, float>) return Float16{FloatToHalf(v)};
    else return Float16{DoubleToHalf(static_cast<double>(v))};
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    if constexpr (std::is_same_v<From, float>) return BFloat16{FloatToBFloat16(v)};
    else return BFloat16{DoubleToBFloat16(static_cast<double>(v))};
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return FloatToInt<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Text of a number for Cast(to=STRING): integers in decimal; bool as "True"/"False"; floats
// with the shortest digits that round-trip in their own type, positional for
// 1e-4 <= |v| < 1e16 ("0.5", "100.0") and scientific otherwise ("1e-05", "1.5e+20") — the
// numpy str() form the ONNX reference outputs use — and "NaN", "INF", "-INF".
std::string FormatFloat(float v);
std::string FormatDouble(double v);
std::string FormatHalf(uint16_t bits, bool bfloat16);

// Parses a Cast(from=STRING) element: optional surrounding whitespace, plain or scientific
// decimal ("3.14", "-1e-5", "1E8", "+2"), and case-insensitive "NaN", "INF", "+INF", "-INF",
// "Infinity"; "True"/"False" give 1/0. Errors: InvalidArgument quoting the text.
Expected<double> ParseDouble(std::string_view s);
Expected<float> ParseFloat(std::string_view s);
// Integers parse exactly when the text is an integer literal, otherwise through ParseDouble
// and FloatToInt.
Expected<int64_t> ParseInt64(std::string_view s);
Expected<uint64_t> ParseUInt64(std::string_view s);

// Converts `in` (any layout, any dtype incl. string) to a contiguous tensor of dtype `to`;
// returns `in` itself when the dtype already matches. Errors: Unimplemented for complex types,
// InvalidArgument for an unparsable string.
Expected<Tensor> CastTo(const Tensor& in, DType to, int threads = 1);
// Same, writing into `out` (contiguous, dtype `to`, same shape as `in`).
Status CastInto(const Tensor& in, Tensor& out, int threads = 1);

}  // namespace vt::ops
