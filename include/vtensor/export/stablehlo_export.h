// StableHLO emitter (docs/design.md §3.4).
//
// Writes MLIR text in generic op form: one `func.func @main` whose arguments are the graph's
// inputs and whose results are its outputs, computing the model with stablehlo ops (chlo.erf
// for Erf). The model is first specialized to static shapes (passes/static_shapes.h); input
// dims neither known nor bound by `input_shapes` stay dynamic (`?` in the types, StableHLO's
// dynamic_* ops where a shape depends on them; docs/export.md "Dynamic dims"). Every op
// of every node must have a converter; otherwise the export fails with Unimplemented naming
// the node and op (nothing is written by the CLI then).
//
// Layouts (read from TensorSpec metadata, decided by the target's passes, never here):
//  * module attribute `vt.tensor_layouts = {"VALUE" = {typed facts}, ...}` for every weight
//    the module references that has a layout (export/layout_attr.h has the entry syntax);
//    without a target no layout exists, so the attribute is absent;
//  * `vt.target = "T"` when a target was named;
//  * with `externalize`, weights larger than `externalize_above` bytes become
//      "util.global"() {sym_name = "KEY", sym_visibility = "private", type = T,
//                       initial_value = #flow.parameter.named<"SCOPE"::"KEY"> : T}
//    read with util.global.load; KEY is the value name. Their bytes (ExternalParam) are the
//    payload packed in the value's layout (layout/layout_pack.h PackFloats: the bytes a
//    compiled tensor holds for that target) or, without a layout, the dense row-major bytes;
//  * with `per_type_layouts`, T of such a global also carries `#vt.layout<{...}>`.
// Inline weights are stablehlo.constant with their logical values (hexadecimal dense
// literals); their layout is declared only in vt.tensor_layouts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"

namespace vt {

struct StableHloOptions {
  std::string target;                       // recorded as vt.target ("" = none)
  bool externalize = false;                 // weights -> util.global + parameters
  std::string param_scope = "model";
  int64_t externalize_above = 1024;         // bytes
  bool per_type_layouts = false;
  // Binds inputs' dims; a dim of -1 (and every input dim not bound here or known) stays dynamic.
  std::map<std::string, Shape> input_shapes;
  std::map<std::string, std::vector<double>> input_values;  // inputs bound to constants
};

struct ExternalParam {
  std::string key;              // #flow.parameter.named<scope::key>
  std::string layout_text;      // canonical layout text of `bytes` ("" = dense row-major)
  std::vector<uint8_t> bytes;   // payload, verbatim
};

struct StableHloModule {
  std::string mlir;
  std::vector<ExternalParam> params;  // in the order the globals are declared
};

// Specializes `model` to static shapes (rewriting it) and emits it. Errors: SpecializeShapes'
// errors; Unimplemented "node 'N' (Op, opset K): ..." for an op or attribute without a
// conversion, or a dynamic dim the op cannot take (naming the input or output, the dim and its
// name); InvalidArgument for malformed layout metadata.
Expected<StableHloModule> ExportStableHlo(Model& model, const StableHloOptions& opts);

// ONNX op types (default domain) the emitter converts, sorted.
std::vector<std::string> StableHloSupportedOps();

}  // namespace vt
