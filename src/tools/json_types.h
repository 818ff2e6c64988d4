// JSON forms of types and shapes shared by the `--json` outputs of run, bench, info, digest and
// passes (docs/cli.md, "JSON output"), and the one way they are printed.
#pragma once

#include <nlohmann/json.hpp>

#include "vtensor/graph/type_info.h"
#include "vtensor/layout/layout.h"

namespace vt::cli {

// [1, 3, 224] for a concrete shape.
nlohmann::json ShapeJson(const Shape& s);
// {"type": "tensor(float32)[batch,3]", "elem_type": "float32", "shape": ["batch", 3, null]}:
// a dim is its value, its dim_param, or null when unknown; "shape" is null for an unknown rank
// and absent for non-tensors.
nlohmann::json TypeJson(const TypeInfo& t);
// Indented (2 spaces) on stdout with a final newline.
void PrintJson(const nlohmann::json& j);

}  // namespace vt::cli
