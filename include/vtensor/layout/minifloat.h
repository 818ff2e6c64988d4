// Values of the 8-bit and 4-bit float element types (float8e4m3fn, float8e4m3fnuz, float8e5m2,
// float8e5m2fnuz, float4e2m1) and conversion to them, as docs/dtypes.md sums up from ONNX's
// Cast operator text: round to nearest even, and the `saturate` rules for values beyond the
// largest finite value, infinities and NaN.
#pragma once

#include <cstdint>

#include "vtensor/layout/dtype.h"

namespace vt {

// Value of the one-byte code `code` of float8 type `t` (IsFloat8DType(t)): exact in float,
// NaN for the NaN codes (S.1111.111 for e4m3fn, 0x80 for the fnuz types, S.11111.{01,10,11}
// for e5m2), +-Inf for e5m2's S.11111.00.
float Float8ToFloat(DType t, uint8_t code);
// Code of `x` in float8 type `t`. Rounds to nearest even. Out of range (after rounding) and
// +-Inf: with `saturate` the largest finite value of the sign, except that +-Inf gives NaN for
// the fnuz types; without it NaN (e4m3fn keeps the sign; fnuz) or +-Inf (e5m2). -0 gives 0 in
// the fnuz types (which have no negative zero).
uint8_t FloatToFloat8(DType t, double x, bool saturate);

// Value of the 4-bit float4e2m1 code in the low nibble of `code`: +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
float Float4E2M1ToFloat(uint8_t code);
// Code (0..15) of `x`: round to nearest even; beyond +-6 and +-Inf give +-6, NaN gives 6
// (the float4e2m1 type has neither infinities nor NaN).
uint8_t FloatToFloat4E2M1(double x);

// Value of one stored element of any small float type (float8 or float4e2m1).
float MiniFloatToFloat(DType t, uint8_t code);
// Code of `x` in any small float type (`saturate` is ignored for float4e2m1, which always
// saturates).
uint8_t FloatToMiniFloat(DType t, double x, bool saturate);
// The small float types: the four float8 types and float4e2m1.
inline bool IsMiniFloatDType(DType t) { return IsFloat8DType(t) || t == DType::kFloat4E2M1; }

}  // namespace vt
