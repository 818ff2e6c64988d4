// TensorProto <-> Tensor and reading ModelProto files: the byte-level half of ONNX import,
// shared by the graph importer (graph/onnx_import.h), digests and the compiled-tensor format.
// Every error names the file, the tensor and the offending field.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "vtensor/base/file.h"
#include "vtensor/base/status.h"
#include "vtensor/tensor/tensor.h"

namespace onnx {
class ModelProto;
class TensorProto;
}  // namespace onnx

namespace vt {

// Largest element count a tensor or a dim may declare (1 Ti elements: beyond any real model).
constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

// "tensor 'NAME'", the label every error about `tp` uses.
std::string TensorLabel(const onnx::TensorProto& tp);

// Resolves and maps external data files relative to the model directory, once per file.
class ExternalDataResolver {
 public:
  explicit ExternalDataResolver(std::string base_dir) : base_dir_(std::move(base_dir)) {}
  // Errors: InvalidArgument for absolute paths or paths leaving base_dir; NotFound; IoError.
  Expected<std::shared_ptr<MappedFile>> Map(const std::string& location);
  const std::string& base_dir() const { return base_dir_; }

 private:
  std::string base_dir_;
  std::map<std::string, std::shared_ptr<MappedFile>> files_;
};

class ElidedPayloads;  // format/model_skeleton.h

struct TensorContext {
  std::string file;  // for messages
  ExternalDataResolver* external = nullptr;  // null: external data is an error
  // When set, raw_data payloads of at least kBorrowMinBytes are borrowed (zero copy) from the
  // parsed protobuf, which `owner` keeps alive; otherwise they are copied.
  std::shared_ptr<const void> owner;
  // The payloads a skeleton parse left in the mapped file: a raw_data token of this table
  // reads as a tensor borrowing the mapping (null: tokens are no tensor's bytes).
  std::shared_ptr<const ElidedPayloads> elided;
  // Borrow elided payloads even when they are not aligned to their element type (the caller
  // aligns them before any typed read: tensor/natural_alignment.h); else such ones are copied.
  bool keep_misaligned = false;
};
constexpr size_t kBorrowMinBytes = 4096;

// Converts one TensorProto. Validates dtype, dims (>= 0, no overflow) and that the data field
// holds exactly numel elements. Errors name ctx.file, the tensor name and the field.
Expected<Tensor> TensorFromProto(const onnx::TensorProto& tp, const TensorContext& ctx);
// Writes a dense tensor as TensorProto (raw_data, or string_data for strings; the 4-bit types
// packed two per byte as ONNX stores them).
void TensorToProto(const Tensor& t, const std::string& name, onnx::TensorProto* tp);

// Parses the complete ModelProto of a file (mmap + ParseFromArray; every payload copied), for
// paths that digest or rewrite it; loading uses the skeleton parse (format/model_skeleton.h).
// Errors as LoadModel.
Expected<std::unique_ptr<onnx::ModelProto>> ParseModelFile(const std::string& path);
}  // namespace vt
