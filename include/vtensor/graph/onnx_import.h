// ONNX importer: ModelProto / TensorProto / SequenceProto / OptionalProto -> vtensor IR.
// Implements the "Capture" stage (docs/design.md §3.1): the only stage that sees the file bytes.
//
// Supported: IR versions 3..10 and any opset (a model is never rejected for being newer than
// the ONNX library vtensor was built with); initializers in raw_data, typed fields or external
// data files (memory-mapped read-only, not copied); Constant nodes; subgraphs (If/Loop/Scan)
// with outer-scope names; model-local functions (inlined).
// Errors name the file, the tensor or node, and the offending field.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "vtensor/format/tensor_proto.h"
#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"
#include "vtensor/tensor/value.h"

namespace onnx {
class ModelProto;
class TypeProto;
class GraphProto;
}  // namespace onnx

namespace vt {

// Converts an ONNX TypeProto.
TypeInfo TypeFromProto(const onnx::TypeProto& tp);

struct ImportOptions {
  bool infer_shapes = true;  // run ONNX shape inference to fill Graph::values (best effort)
  // The payloads of a skeleton parse (format/model_skeleton.h), whose tensors borrow the
  // mapped file; null for a complete ModelProto.
  std::shared_ptr<const ElidedPayloads> elided;
  // Borrow elided payloads whatever their alignment (TensorContext::keep_misaligned).
  bool keep_misaligned = false;
  // Import only the tensors a session plan refers to (graph/plan_graph.h SourceTensors): the
  // main graph's initializers and its Constant nodes (after inlining model-local functions),
  // with the model's metadata and opsets; no other node, input, output or value.
  bool sources_only = false;
};

// Loads a model file: a skeleton parse (format/model_skeleton.h), so large raw_data tensors
// borrow the mapped file instead of being copied. Errors: NotFound, IoError, InvalidArgument
// (not a valid ModelProto, IR version outside 3..10, bad initializer, node without op_type,
// ...).
Expected<Model> LoadModel(const std::string& path, const ImportOptions& opts = {});
// Imports an already-parsed ModelProto; `path` is used for messages and external data.
Expected<Model> ImportModel(const onnx::ModelProto& mp, const std::string& path,
                            const ImportOptions& opts = {});
// As above; large raw_data initializers borrow their bytes from `mp`, which the returned
// tensors keep alive.
Expected<Model> ImportModel(std::shared_ptr<const onnx::ModelProto> mp, const std::string& path,
                            const ImportOptions& opts = {});
// Imports one GraphProto (used for schema function bodies expanded at run time).
Expected<std::shared_ptr<Graph>> ImportGraph(const onnx::GraphProto& gp, const Model& model,
                                             const Graph* parent, TensorContext& ctx);

// Reads a value file written in the ONNX backend-test layout (input_N.pb / output_N.pb):
// a TensorProto, SequenceProto or OptionalProto depending on `expected` (a tensor when the
// type is unknown). Errors: NotFound, InvalidArgument naming the file and field.
Expected<Value> LoadValueFile(const std::string& path, const TypeInfo& expected);

}  // namespace vt
