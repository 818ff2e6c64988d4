// Portable decoders of struct types (seed 000 "Its optional decoder describes portable
// interpretation for inspectable formats"; issue #3 item 2): an ONNX FunctionProto whose one
// input is the type's "data" field (a flat 1-D tensor) and whose output is the logical tensor,
// built only from standard ops (Slice, Reshape, Transpose; opset 13+), so any ONNX runtime can
// read a packed payload.
#pragma once

#include <string>

#include "vtensor/base/status.h"
#include "vtensor/layout/layout.h"

namespace vt {

// Domain of generated decoder functions.
constexpr const char* kDecoderDomain = "ai.vtensor.decoders";

// Serialized onnx.FunctionProto decoding a payload laid out as `l`. Expressible for scalar
// encodings (f32, f16, bf16, i8, u8) whose levels nest densely (each stride is the product of
// the digit counts of the levels inside it): the flat data is sliced past the offset, reshaped
// to the level digits, transposed to logical-dim order, reshaped to the padded shape and
// sliced to the logical shape. Errors: Unimplemented for block or sub-byte encodings, broadcast
// or gapped strides.
Expected<std::string> BuildLayoutDecoder(const Layout& l, const std::string& name);

}  // namespace vt
