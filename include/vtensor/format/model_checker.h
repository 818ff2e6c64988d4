// Checker for models with compiled tensors (docs/design.md §4).
// Structural rules need no hardware knowledge; a stale digest or an unknown digest algorithm
// is only a cache miss at load time, so it is a warning here.
//
// Rules (Finding::rule):
//   onnx                      libonnx checker error (error)
//   onnx-newer                model newer than libonnx's checker could verify (warning)
//   device-duplicate          two identical DeviceProto entries (error)
//   device-metadata-key       duplicate key in devices[i].metadata_props (error)
//   device-index              entry's device index negative or out of range (error)
//   duplicate-key             two entries with one (source_name, device, type name) (error)
//   source-missing            source_name names no graph initializer (error)
//   source-ambiguous          source_name names more than one initializer (error)
//   digest-empty              empty source_digest (error)
//   digest-algorithm-empty    empty digest_algorithm (error)
//   digest-length             digest length wrong for a known algorithm (error)
//   digest-algorithm-unknown  algorithm other than blake3/sha256 (warning: cache miss)
//   digest-stale              digest differs from the initializer's (warning: cache miss)
//   type-unresolved           no type, negative or out-of-range type_index (error)
//   type-inexact              value's type has a symbolic dim: unconstrained static type (error)
//   type-invalid              struct type malformed: name, version, fields, layout (error)
//   layout-shape              type's layout shape differs from the initializer's dims (error)
//   payload-missing           neither raw_data nor external (error)
//   payload-size              payload length differs from the type's byte_size (error)
//   payload-external          external location/offset/length invalid or outside its file (error)
//   payload-digest            the entry's vt.payload_digest (format/payload_digest.h) does not
//                             match its payload bytes, or names an unknown algorithm (error)
//   metadata-key              duplicate key in compiled_tensors[i].metadata_props (error)
//   decoder-invalid           decoder is not a FunctionProto taking the fields (error)
//   decode-mismatch           --decode: decoded payload differs from the initializer beyond the
//                             encoding's bound, or the stored decoder fails on it (error)
//   decode-layout             --decode: decoded through the layout with vtensor's unpacker
//                             because the type has no decoder or no runner was given (info)
//   decode-skipped            --decode: entry could not be decoded (info)
//
// --decode (docs/compiled-tensors.md "Decoders"): when the type has a decoder and
// CheckOptions::run_decoder is set, the decoder FunctionProto runs on the payload's fields
// (format/struct_decoder.h DecoderInputs); otherwise the payload is unpacked through the type's
// layout (UnpackFloats). The result must equal the initializer bit for bit when the storage
// is lossless for the source's element type, else lie within DecodeTolerance.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vtensor/format/compiled_model.h"
#include "vtensor/tensor/tensor.h"

namespace vt {

enum class Severity { kError, kWarning, kInfo };
const char* SeverityName(Severity s);  // "error", "warning", "info"

struct Finding {
  Severity severity = Severity::kError;
  std::string rule;         // one of the rule names above
  int entry = -1;           // index into compiled_tensors; -1 for model-level findings
  std::string source_name;  // the entry's source_name ("" for model-level)
  std::string field;        // e.g. "compiled_tensors[2].device", "devices[1]"
  std::string message;
};

struct CheckOptions {
  bool onnx_checker = true;  // run libonnx's checker on the stock part of the model
  bool decode = false;       // decode each payload and compare with its initializer
  bool digests = true;       // recompute source digests (reads every compiled initializer)
  // Runs a decoder: serialized onnx.FunctionProto, its inputs, a message prefix -> the logical
  // tensor. The format layer does not link the runtime, so the tools layer injects
  // RunDecoderFunction (runtime/decoder_runner.h). Null: --decode unpacks through the layout.
  // An Unimplemented error means "cannot run this op here" (decode-skipped), any other error
  // is the decoder's fault (decode-mismatch).
  std::function<Expected<Tensor>(const std::string& function_bytes,
                                 const std::vector<Tensor>& inputs, const std::string& what)>
      run_decoder;
};

// All findings for `m` (never throws; reads external files relative to m.path).
std::vector<Finding> CheckCompiledModel(const CompiledModel& m, const CheckOptions& opts = {});

// Worst-case decode error bound of an encoding, relative to the largest |value| of the
// tensor: 0 for lossless encodings (exact comparison). EncodingTraits::decode_error.
float DecodeErrorBound(Encoding e);

// The --decode tolerance of type `t` for a source of element type `source`, relative to the
// source's largest |value| (0: bit-exact). A type with a layout: 0 when the layout's encoding
// is the source's own, else DecodeErrorBound(layout encoding). A type without a layout
// (several planes, e.g. format/planar_block_quant.h): the largest bound over its fields, where
// integer planes are quantized values with scales: i4/u4 2/15, i8/u8 1/127 (a scale of
// (max - min) / levels and round-to-nearest err by at most half a step;
// EncodingTraits::plane_error).
float DecodeTolerance(const vtensor::StructTypeProto& t, DType source);

}  // namespace vt
