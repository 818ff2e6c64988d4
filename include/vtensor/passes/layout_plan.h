// The layout plan of a model after its target's passes (the ONNX
// compiled-tensor output of `vtensor compile` reads this same metadata: one planner): every
// initializer that has a layout in its TensorSpec metadata, in a deterministic order. Emitters
// and `vtensor compile` read this list; none of them decides layouts.
#pragma once

#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"
#include "vtensor/layout/layout.h"

namespace vt {

struct PlannedLayout {
  std::string value;     // value (initializer) name
  std::string identity;  // vt.identity (the source initializer whose bytes it holds)
  std::string origin;    // vt.layout.origin
  Layout layout;
  const Graph* graph = nullptr;  // the graph owning the initializer (main graph or a subgraph)
};

// Main graph first, then subgraphs in node order; within a graph, by value name.
// Errors: InvalidArgument naming the value for malformed layout metadata.
Expected<std::vector<PlannedLayout>> CollectPlannedLayouts(const Model& model);

}  // namespace vt
