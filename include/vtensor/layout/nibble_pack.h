// ONNX's packed form of the 4-bit element types (uint4, int4, float4e2m1): two elements per
// byte, element 2j in the low nibble of byte j and 2j+1 in the high nibble; an odd count leaves
// the last high nibble zero (onnx.proto, TensorProto raw_data / int32_data). In memory a Tensor
// of these types holds one element per byte (layout/dtype.h); these convert at the file
// boundary.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vtensor/layout/dtype.h"

namespace vt {

// Packs `n` one-per-byte elements (the low 4 bits of each src byte) into ceil(n / 2) bytes.
void PackNibbles(const uint8_t* src, int64_t n, uint8_t* dst);
// Unpacks `n` elements of 4-bit type `t` from ceil(n / 2) packed bytes: int4 sign-extended to
// int8 (-8..7), uint4 and float4e2m1 as 0..15. The unused high nibble of an odd count is ignored.
void UnpackNibbles(DType t, const uint8_t* src, int64_t n, uint8_t* dst);

}  // namespace vt
