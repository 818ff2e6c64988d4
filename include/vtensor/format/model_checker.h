// Checker for models with compiled tensors (DESIGN §4 "Checker errors"; seed 000 "Validation";
// issue #3 item 4). Structural rules need no hardware knowledge; a stale digest or an unknown
// digest algorithm is only a cache miss at load time, so it is a warning here.
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
//   metadata-key              duplicate key in compiled_tensors[i].metadata_props (error)
//   decoder-invalid           decoder is not a FunctionProto taking the fields (error)
//   decode-mismatch           --decode: unpacked payload differs from the initializer (error)
//   decode-skipped            --decode: entry could not be decoded (info)
#pragma once

#include <string>
#include <vector>

#include "vtensor/format/compiled_model.h"

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
  bool decode = false;       // unpack each payload through its layout and compare
  bool digests = true;       // recompute source digests (reads every compiled initializer)
};

// All findings for `m` (never throws; reads external files relative to m.path).
std::vector<Finding> CheckCompiledModel(const CompiledModel& m, const CheckOptions& opts = {});

// Worst-case decode error bound of an encoding, relative to the largest |value| of the
// tensor: 0 for lossless encodings (exact comparison).
float DecodeErrorBound(Encoding e);

}  // namespace vt
