// Builder of portable decoder functions (internal to src/format; contract in
// include/vtensor/format/struct_decoder.h and docs/compiled-tensors.md "Decoders").
//
// A decoder is an onnx::FunctionProto of standard ONNX ops only (default domain, opset 13: no
// BitCast, no INT4 tensors, no BitwiseAnd), so any ONNX runtime can run it. Bytes that have no
// standard element type (sub-byte and block encodings) enter as uint8 tensors and are turned
// into numbers exactly with 256-entry lookup tables (Gather) and float arithmetic whose every
// intermediate is exactly representable.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vt::decoder {

// Opset of the default domain every generated decoder imports.
constexpr int64_t kDecoderOpset = 13;

class FunctionBuilder {
 public:
  // A function `name` in kDecoderDomain with the given formal inputs and one output "value".
  FunctionBuilder(const std::string& name, const std::vector<std::string>& inputs);

  // `out = Constant(int64[values])` (1-D) and `out = Constant(float32[values] of shape dims)`.
  std::string ConstI64(const std::string& out, const std::vector<int64_t>& values);
  std::string ConstF32(const std::string& out, const std::vector<float>& values,
                              const std::vector<int64_t>& dims);
  // Adds `out = op(inputs)`; returns the node to attach attributes to.
  onnx::NodeProto* Op(const char* op, const std::vector<std::string>& inputs,
                      const std::string& out);
  static void AttrInt(onnx::NodeProto* n, const char* name, int64_t v);
  static void AttrInts(onnx::NodeProto* n, const char* name, const std::vector<int64_t>& v);

  // out = x[starts:ends] along `axes` (Slice with constant operands named after `out`).
  std::string Slice(const std::string& x, const std::vector<int64_t>& starts,
                    const std::vector<int64_t>& ends, const std::vector<int64_t>& axes,
                           const std::string& out);
  std::string Reshape(const std::string& x, const std::vector<int64_t>& shape,
                             const std::string& out);
  // uint8 bytes -> int32 indices (for the lookup tables).
  std::string ByteIndex(const std::string& bytes, const std::string& out);
  // out = table[idx] with a float32 table of 256 entries (one per byte value).
  std::string Lookup(const std::string& idx, const std::vector<float>& table,
                            const std::string& out);

  // IEEE binary16 from its little-endian bytes given as int32 indices `lo`, `hi` (same shape):
  // bit-exact, including subnormals, infinities and NaN. Result float32.
  std::string HalfFromBytes(const std::string& lo, const std::string& hi,
                                   const std::string& out);
  // Both nibbles of every byte index in `idx` (shape [..., m]) as float32, concatenated along
  // the last axis as [..., 2m]: `interleave` false gives all low nibbles then all high nibbles
  // (q4_0), true gives low, high of byte 0, low, high of byte 1, ... (ONNX INT4 packing; the
  // input must then be 1-D). Signed nibbles are sign-extended (int4), else 0..15.
  std::string Nibbles(const std::string& idx, bool is_signed, bool interleave,
                             const std::string& out);

  // Serialized FunctionProto.
  std::string Serialize() const { return f_.SerializeAsString(); }

 private:
  onnx::FunctionProto f_;
};

}  // namespace vt::decoder
