// Text dump of a Model with its value metadata (`vtensor passes MODEL
// --target T [--print-after-all]` prints the graph with layouts in text form).
//
// One line per graph input, initializer, node and graph output, nested subgraphs indented
// under their node. Every metadata entry of a value (graph/tensor_meta.h) is printed as
// key=value in key order; layouts therefore appear in their canonical `vt.layout.v1<...>`
// text. The output is deterministic (initializers sorted by name, nodes in topological order).
#pragma once

#include <string>

#include "vtensor/graph/graph.h"

namespace vt {

std::string PrintGraphText(const Model& model);

}  // namespace vt
