// ONNX's operator definitions — the schemas with their function bodies, shape inference and the
// model checker, all of libonnx — live in a plugin, libvtensor-onnxdefs.so, loaded the first
// time one of them is needed: by shape inference at import (ImportOptions::infer_shapes), by a
// node whose operator has no kernel but an ONNX function body (exec/function_kernel.cc), by
// the model checker (format/model_checker.h). A session of a model whose every operator has a
// kernel never loads it; libonnx's loading and static initialisation cost about 1 ms of every
// process start (docs/benchmarks.md, "Process start").
//
// The plugin is built from src/format/onnxdefs/ with the same compiler and sources as the
// library that loads it, against the same shared libonnx_proto and libprotobuf, so its table
// hands over onnx:: messages and C++ types (base/plugin.h).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "vtensor/base/status.h"

namespace vt {

struct OnnxDefs {
  // ONNX shape inference over `model` in place (not strict, no data propagation): its
  // graph's value_info gains the types it infers. False with the reason in *error.
  bool (*infer_shapes)(onnx::ModelProto* model, std::string* error);
  // onnx::checker::check_model. False with the checker's message in *error.
  bool (*check_model)(const onnx::ModelProto& model, std::string* error);
  // The last opset of each domain the schemas define ("" is ai.onnx).
  std::map<std::string, int> (*last_opsets)();
  // The schema of operator `op_type` of `domain` ("" is ai.onnx) as of `opset`, or null when
  // there is none or it defines no function body (neither fixed nor built from input types).
  // Valid until exit.
  const void* (*find_function_schema)(const std::string& op_type, int opset,
                                      const std::string& domain);
  // Whether the schema can build a body from its inputs' types (then bodies may differ by
  // input type and rank).
  bool (*context_dependent)(const void* schema);
  // The schema's attributes that have a default value, each named.
  std::vector<onnx::AttributeProto> (*attribute_defaults)(const void* schema);
  // The function body for `node` whose inputs have `input_types` (one per input of the node,
  // absent inputs included), into *body. False with the reason in *error.
  bool (*function_body)(const void* schema, const onnx::NodeProto& node,
                        const std::vector<onnx::TypeProto>& input_types,
                        onnx::FunctionProto* body, std::string* error);
  // `body` (from function_body) expanded for `node` of `schema` into *graph's nodes, their
  // names and values prefixed by `prefix` (onnx::FunctionExpandHelper). False with the reason
  // in *error.
  bool (*expand_function)(const void* schema, const onnx::NodeProto& node,
                          const onnx::FunctionProto& body, const std::string& prefix,
                          onnx::GraphProto* graph, std::string* error);
};

// Raised whenever OnnxDefs or a type it hands over changes.
inline constexpr int kOnnxDefsAbi = 2;
// The plugin's file name and its one exported function (base/plugin.h):
//   extern "C" const void* vt_onnxdefs_table(int abi, size_t table_bytes)
inline constexpr char kOnnxDefsFile[] = "libvtensor-onnxdefs.so";
inline constexpr char kOnnxDefsEntry[] = "vt_onnxdefs_table";

// The plugin's table, loaded by the first call (thread-safe; later calls return the same
// answer). Looked for at $VTENSOR_ONNXDEFS (a file path) when set, else beside the program or
// shared library holding vtensor's code (its directory, then lib/ and ../lib/ under it), then in
// the installed library directory. `what` names who needs it, for the error.
// Error: FailedPrecondition naming `what`, every path tried and the loader's reason.
Expected<const OnnxDefs*> LoadOnnxDefs(const std::string& what);

// The paths LoadOnnxDefs tries, in order (read now).
std::vector<std::string> OnnxDefsCandidates();
// The first of `paths` that loads as the plugin, uncached. Error: as LoadOnnxDefs.
Expected<const OnnxDefs*> LoadOnnxDefsFrom(const std::vector<std::string>& paths,
                                           const std::string& what);

}  // namespace vt
