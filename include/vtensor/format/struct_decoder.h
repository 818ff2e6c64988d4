// Portable decoders of struct types (docs/compiled-tensors.md, "Decoders").
//
// Decoder contract. StructTypeProto.decoder holds a serialized onnx.FunctionProto in domain
// kDecoderDomain with exactly one formal input per field of the type, in field order, and one
// output: the logical tensor. Each field is fed as (DecoderInputs below):
//   * scalar encodings with an ONNX element type (f32, f16, bf16, i8, u8): a tensor of that
//     element type and of the field's shape;
//   * every other encoding (i4/u4 nibbles, q8_0, q4_0, q4zp32, q4_k blocks): its bytes as a
//     1-D uint8 tensor of FieldBytes(field) elements (sub-byte values keep ONNX INT4 packing:
//     element 2j in the low nibble of byte j).
// The body uses only standard ONNX ops of the default domain at opset 13 (Constant, Cast,
// Gather, Slice, Reshape, Transpose, Concat, Unsqueeze, Pad, Add, Sub, Mul, Greater, Where),
// so any ONNX runtime can read a payload. Decoding is exact: the output equals vtensor's own
// unpacker (UnpackFloats) bit for bit.
#pragma once

#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/layout/layout.h"
#include "vtensor/tensor/tensor.h"

namespace vt {

// Domain of generated decoder functions.
constexpr const char* kDecoderDomain = "ai.vtensor.decoders";

// Serialized onnx.FunctionProto decoding the single field "data" of a payload laid out as `l`
// (the type StructTypeForLayout builds), output = the logical tensor of shape l.shape().
// Element type of the output: the encoding's own type for scalar encodings (f32, f16, bf16,
// i8, u8), float32 for i4/u4 and the block formats q8_0, q4_0, q4zp32.
// Physical levels must nest densely (each level's stride is the product of the digit counts of
// the levels inside it): the flat decoded elements are sliced past the offset, reshaped to the
// level digits, transposed to logical-dim order, reshaped to the padded shape and sliced to
// the logical shape. Errors: Unimplemented for q4_k (6-bit packed sub-block scales; no decoder
// is generated), broadcast or gapped strides.
Expected<std::string> BuildLayoutDecoder(const Layout& l, const std::string& name);

// The decoder's inputs for one payload of type `t` (`size` bytes at `bytes`), following the
// contract above; copies the bytes. Errors: InvalidArgument naming the field when a field is
// malformed or its bytes lie outside the payload.
Expected<std::vector<Tensor>> DecoderInputs(const vtensor::StructTypeProto& t,
                                            const uint8_t* bytes, size_t size);

}  // namespace vt
