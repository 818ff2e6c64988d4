// Graph bookkeeping shared by the fusions (fuse_hardswish.cc, fuse_conv.cc): who reads each
// value, constants by name, removing absorbed nodes.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "vtensor/graph/graph.h"

namespace vt::fusion {

// `fuse` applied to every subgraph attribute of every node of `g` (not to `g` itself); the sum
// of what it returns.
size_t FuseSubgraphs(Graph& g, size_t (*fuse)(Graph&));

// Outer-scope names the subgraph attributes of `node` read.
std::vector<std::string> SubgraphReads(const Node& node);

// How many times each value of one graph is read, and by whom. Subgraph reads and graph
// outputs count as 1000 uses each, so nothing they see is fused away.
class ValueUses {
 public:
  explicit ValueUses(const Graph& g);
  int Uses(const std::string& v) const;
  // The only node reading `v` (Uses(v) == 1), or null.
  Node* SoleConsumer(Graph& g, const std::string& v) const;

 private:
  std::unordered_map<std::string, int> uses_;
  std::unordered_map<std::string, size_t> consumer_;  // the last reader
};

// Nodes not in `removed` by each value they produce.
std::unordered_map<std::string, Node*> Producers(Graph& g,
                                                 const std::unordered_set<const Node*>& removed);

// The node producing `v` when it is a default-domain `op`, else null.
Node* ProducedBy(const std::unordered_map<std::string, Node*>& producers, const std::string& v,
                 const char* op);

// Initializer `name` when it is float32, else null (also for an empty name).
const Tensor* F32Const(const Graph& g, const std::string& name);

// Initializer `name` is a float32 one-element tensor within `tol` of `want`.
bool IsScalarConst(const Graph& g, const std::string& name, double want, double tol = 0.0);

// Drops the nodes in `removed`, keeping the order of the others.
void EraseNodes(Graph& g, const std::unordered_set<const Node*>& removed);

// `base`, or `base.N` for the first N that names no initializer or value of `g`.
std::string FreshName(const Graph& g, const std::string& base);

}  // namespace vt::fusion
