// Running a model once without a session: for graph passes that need a node's value or
// output shape (static shapes), where a Session (runtime/session.h, above the passes) is out
// of reach. No constant folding, fusion or compiled-tensor cache; weights are packed by the
// default provider (host ISA, exact profile).
#pragma once

#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"
#include "vtensor/tensor/value.h"

namespace vt {

// Runs `model` once with `threads` OpenMP intra-op threads (>= 1). `inputs` follow
// model.graph->RealInputs() order. Returns the outputs in graph output order. Errors:
// InvalidArgument for a wrong input count; any kernel creation or kernel error (naming node,
// op type and opset).
Expected<std::vector<Value>> EvaluateModel(const Model& model, const std::vector<Value>& inputs,
                                           int threads = 1);

}  // namespace vt
