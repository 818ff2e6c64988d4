// Range check of the 4-bit element types as vtensor holds them in memory: one element per byte
// (docs/dtypes.md), int4 as int8 values in -8..7, uint4 as 0..15, float4e2m1 as codes 0..15.
#pragma once

#include "vtensor/base/status.h"
#include "vtensor/tensor/tensor.h"

namespace vt {

// Ok for any tensor that is not uint4 / int4 / float4e2m1, or whose every element is in its
// type's range. Errors: InvalidArgument "element I = V is outside T's range LO..HI" (I the flat
// index of the first bad element).
Status CheckSubByteValues(const Tensor& t);

}  // namespace vt
