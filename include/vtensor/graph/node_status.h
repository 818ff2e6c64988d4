// Errors that name a graph node: the node's description ("node 'name' (op_type, opset N)",
// Node::Describe) is one entry of a Status's context chain, added once however many layers
// (kernel, executor, subgraph owner) see the error on its way up. The code never changes.
#pragma once

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"

namespace vt {

// True when a context entry of `st` names `node`: the entry is node.Describe(), or starts
// with it followed by ": " (an entry that adds a detail after the node, such as the weight
// provider's "<node>: weight 'W'").
bool NamesNode(const Status& st, const Node& node);

// `st` with node.Describe() appended to its context chain unless NamesNode(st, node); OK
// stays OK. Keeps the code, so an unsupported type stays kUnimplemented.
Status AnnotateNode(Status st, const Node& node);

}  // namespace vt
