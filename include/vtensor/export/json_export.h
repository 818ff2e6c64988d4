// JSON emitter: a machine-readable dump of a graph and its layouts (docs/design.md §3.4).
//
// It reads the same TensorSpec metadata as every other emitter and plans nothing: run the
// passes for the target first (passes/pass.h). Document shape (schema "vtensor.graph", version
// 1; keys in this order, every list in a deterministic order):
//
//   {"schema": "vtensor.graph", "version": 1, "target": "x86_64-avx2" | null,
//    "model": {"ir_version", "producer_name", "producer_version", "opsets": {"": 17, ...}},
//    "graph": GRAPH}
//   GRAPH = {"name", "inputs": [VALUE], "outputs": [VALUE], "initializers": [VALUE + "bytes"],
//            "nodes": [{"name", "op_type", "domain", "opset", "inputs", "outputs",
//                       "attributes": {NAME: ATTR}, "subgraphs": {NAME: GRAPH | [GRAPH]}}],
//            "values": [VALUE]  (every other value with a known type, sorted by name)}
//   VALUE = {"name", "type": "tensor" | "sequence" | ..., "dtype", "shape": [int | "sym" | null],
//            "identity"?, "encoding"?, "alias_of"?, "layout"?: LAYOUT, "layout_origin"?,
//            "compiled"?: {ARCH: LAYOUT}, "metadata"?: {other keys}}
//   LAYOUT = the fields of export/layout_facts.h: {"version", "text", "shape", "encoding",
//            "block_elems", "block_bytes", "scale_placement", "scale_type", "zero_point",
//            "block_order", "form", "strides"?, "levels": [{"dim", "tile", "stride"}],
//            "padded", "offset", "storage_bytes"}
// Tensor attributes carry dtype and shape, and their values when they have at most 64
// elements. Floats are written in shortest round-trip form; NaN and infinities as strings.
#pragma once

#include <string>

#include "vtensor/base/status.h"
#include "vtensor/export/layout_facts.h"
#include "vtensor/graph/graph.h"

namespace vt {

struct JsonExportOptions {
  std::string target;  // recorded in the document ("" = null)
  int indent = 2;      // nlohmann::json dump indent
};

// Errors: InvalidArgument for malformed layout metadata (naming the value).
Expected<std::string> ExportJson(const Model& model, const JsonExportOptions& opts = {});

// Parses the "layout" object written above back into facts. Errors: InvalidArgument naming
// the missing or mistyped field.
Expected<LayoutFacts> LayoutFactsFromJson(const std::string& json_object);

}  // namespace vt
