// Cast between the small element types (float8e4m3fn, float8e4m3fnuz, float8e5m2,
// float8e5m2fnuz, uint4, int4, float4e2m1) and every other castable type (ONNX Operators.md
// "Cast", opsets 19, 21 and 23; docs/dtypes.md).
//
// Rules: a small float widens exactly to float32 first; a value going to a float8 type rounds
// once from float64 to nearest even with the `saturate` rules of layout/minifloat.h
// (float4e2m1 always saturates); a value going to int4 / uint4 converts to int64 first (floats
// truncate toward zero) and keeps its low 4 bits, read as two's complement for int4 — the
// integer rule of the Cast text ("discard higher bits and reinterpret"). Strings parse as
// float64 / int64 and small types print as their float32 / int8 values.
#pragma once

#include "vtensor/base/status.h"
#include "vtensor/tensor/tensor.h"

namespace vt::ops {

// True when `from` or `to` is one of the small types this file casts.
bool IsSmallCast(DType from, DType to);
// Converts `in` (any layout) into `out` (contiguous, dtype `to`, same shape), for a pair
// IsSmallCast accepts. Errors: Unimplemented for complex types, InvalidArgument for an
// unparsable string.
Status CastSmallInto(const Tensor& in, Tensor& out, bool saturate);

}  // namespace vt::ops
