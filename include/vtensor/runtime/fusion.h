// Graph fusions applied at session creation (DESIGN §3.3 "fusion"), after constant folding.
//
// FuseHardSwish: exporters (paddle2onnx, older PyTorch) spell HardSwish as
//   y = Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6)     (or Mul(..., 1/6) instead of the Div)
// which costs four full passes over the tensor; it becomes one HardSwish(x) node. The
// intermediates must have no other consumer and not be graph outputs; the constants must be
// float32 scalars with exactly those values. Results may differ from the unfused graph by
// float rounding only (HardSwish is x * clamp(x/6 + 1/2, 0, 1)).
#pragma once

#include <cstddef>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"

namespace vt {

// Rewrites `graph` (and its subgraphs) in place; returns the number of fused patterns.
size_t FuseHardSwish(Graph& graph);

}  // namespace vt
