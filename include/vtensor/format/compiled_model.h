// Reading and writing models that carry compiled tensors (docs/design.md §4,
// docs/compiled-tensors.md). The extension messages are in src/format/vtensor_ext.proto (ModelProto fields 27
// struct_types, 28 devices, 29 compiled_tensors, 30 session_plans; numbers defined only there).
//
// A model is parsed as a stock onnx::ModelProto; the unknown fields 27-30 are moved out of it
// into a vtensor::ModelExtension, and every other field, known or unknown, stays intact.
// Writing serializes the ModelProto and appends the serialized extension (protobuf merge
// semantics), atomically (temp file + rename); the source model is never modified in place.
#pragma once

#include <memory>
#include <string>

#include "vtensor/base/status.h"
#include "vtensor/format/tensor_digest.h"
#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/layout/layout.h"

namespace onnx {
class ModelProto;
}

namespace vt {

struct CompiledModel {
  CompiledModel();
  ~CompiledModel();
  CompiledModel(CompiledModel&&) noexcept;
  CompiledModel& operator=(CompiledModel&&) noexcept;

  std::unique_ptr<onnx::ModelProto> model;  // without fields 27-30
  vtensor::ModelExtension ext;              // fields 27-30
  std::string path;                         // for messages and relative external locations
};

// Parses model bytes. Errors: InvalidArgument "PATH: not a valid ONNX ModelProto" or "PATH: field
// 27/28/29/30 (struct_types/devices/compiled_tensors/session_plans) is malformed".
Expected<CompiledModel> ParseCompiledModel(const void* data, size_t size, const std::string& path);
// Reads a model file (memory-mapped). Errors: NotFound, IoError, as ParseCompiledModel.
Expected<CompiledModel> ReadCompiledModel(const std::string& path);
// Only fields 27-30 of model bytes, without building the ModelProto: every other top-level
// field is skipped (initializer bytes are never copied). A model without them gives an empty
// extension. Errors: InvalidArgument for malformed protobuf or extension fields.
Expected<std::shared_ptr<vtensor::ModelExtension>> ParseModelExtension(const void* data,
                                                                       size_t size,
                                                                       const std::string& path);
// ParseModelExtension of a file (memory-mapped). Errors: NotFound, IoError, as above.
Expected<std::shared_ptr<vtensor::ModelExtension>> ReadModelExtension(const std::string& path);
// ModelProto bytes followed by the extension bytes. Errors: InvalidArgument over 2 GiB.
Expected<std::string> SerializeCompiledModel(const CompiledModel& m);
// Serializes and writes atomically. Errors: as SerializeCompiledModel, IoError.
Status WriteCompiledModel(const CompiledModel& m, const std::string& path);

// Layout <-> its structured proto form. Errors (LayoutFromProto): InvalidArgument for symbolic
// dims, unknown encodings, unsupported versions, and Layout::Make's errors.
void LayoutToProto(const Layout& l, vtensor::LayoutProto* p);
Expected<Layout> LayoutFromProto(const vtensor::LayoutProto& p);

// Bytes of one field: EncodedBytes(encoding, product of its dims). Errors: InvalidArgument for
// an unknown encoding, symbolic or negative dims.
Expected<int64_t> FieldBytes(const vtensor::StructFieldProto& f);
// True when any dim of the type (layout or fields) is symbolic: an unconstrained static type.
bool IsSymbolicType(const vtensor::StructTypeProto& t);

// A concrete struct type realising `layout` (which must have an encoding) as one field "data"
// holding PhysicalElements(layout) elements of layout.encoding(), 64-byte aligned, with a
// portable decoder (format/struct_decoder.h) when the layout has one.
vtensor::StructTypeProto StructTypeForLayout(const Layout& layout, const std::string& name,
                                             int64_t format_version);

struct CompileOptions {
  DigestAlgorithm digest = DigestAlgorithm::kBlake3;
  bool model_level_type = true;   // false: the type is inlined into the StructProto
  std::string external_location;  // non-empty: payload appended (64-aligned) to this file,
                                   // relative to the model's directory; else inline raw_data
};

// Packs initializer `source_name` (float32/float16/bfloat16) into `layout`, digests the
// source, and appends a CompiledTensorProto for `device` (reusing an identical device and an
// identical model-level type). Errors: NotFound for a missing initializer, InvalidArgument for
// a shape mismatch or an unsupported source type, pack and I/O errors.
Status AddCompiledTensor(CompiledModel& m, const std::string& source_name, const Layout& layout,
                         const vtensor::DeviceProto& device, const std::string& type_name,
                         const CompileOptions& opts = {});

}  // namespace vt
