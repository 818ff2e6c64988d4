// Helpers the fusion passes share to match node patterns in one graph and rewrite them
// (docs/transformer-fusion.md): who produces and who reads each value, constant operands,
// removal of matched and of dead nodes.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "vtensor/graph/graph.h"

namespace vt {

// Producers and readers of the values of one graph. Graph outputs and names read by subgraphs
// count as readers that are not nodes, so a value they see is never fused away.
class GraphIndex {
 public:
  explicit GraphIndex(Graph& g);
  // The node that produces `v`, when it has op type `op` in the default domain (any op when
  // `op` is null); else null.
  Node* Producer(const std::string& v, const char* op = nullptr) const;
  // Number of reads of `v` (node inputs, subgraph references, graph outputs).
  int Uses(const std::string& v) const;
  // The nodes reading `v` (not counting subgraph or graph-output reads).
  const std::vector<Node*>& Readers(const std::string& v) const;
  // The only reader of `v` when it has exactly one use and that is a node; else null.
  Node* SoleReader(const std::string& v) const;
  bool IsGraphOutput(const std::string& v) const { return outputs_.count(v) > 0; }

 private:
  std::unordered_map<std::string, Node*> producer_;
  std::unordered_map<std::string, int> uses_;
  std::unordered_map<std::string, std::vector<Node*>> readers_;
  std::unordered_set<std::string> outputs_;
};

// The float32 initializer `name` (own or enclosing graph), or null.
const Tensor* F32Initializer(const Graph& g, const std::string& name);
// The value of a float32 initializer with exactly one element and rank 0 or 1 (a constant of
// higher rank would raise the rank of the values it is combined with).
std::optional<float> ScalarF32(const Graph& g, const std::string& name);
// The values of an int64 / int32 initializer of rank <= 1.
std::optional<std::vector<int64_t>> IntsInitializer(const Graph& g, const std::string& name);
// The element type of value `v` when it can be traced: an initializer's or a graph input's
// declared type, a Cast's `to`, or, through ops whose output has their first input's type
// (elementwise arithmetic, Slice, Gather's data, Concat, shape ops, Softmax...), that input's.
// nullopt when unknown. Fusions whose operators take f32 only check it.
std::optional<DType> ElemType(const Graph& g, const GraphIndex& gi, const std::string& v);
// True for a node of the default domain with this op type.
bool IsOp(const Node* n, const char* op);
// The input of two-input node `n` that is not `x` (the other operand of a binary op); null
// when `n` is null, does not have two inputs or does not read `x`.
const std::string* OtherOperand(const Node* n, const std::string& x);
// A name not yet used in `g` for a value or initializer, derived from `base`.
std::string FreshValueName(const Graph& g, const std::string& base);
// `name`, an f32 initializer of shape [1, ..., 1, N] (callers check the shape), as an
// initializer of shape [N] for kernels that take one row of per-channel values: `name` itself
// when its rank is already 1, else a new initializer holding the same N values (the original
// stays until RemoveDeadNodes finds it unread).
std::string AsRowInitializer(Graph& g, const std::string& name);
// Drops the nodes in `removed` from g.nodes, keeping the order of the others.
void EraseNodes(Graph& g, const std::unordered_set<const Node*>& removed);
// Removes, repeatedly, nodes of `g` whose outputs nothing reads (no node, subgraph or graph
// output) and initializers nothing reads that are not graph inputs. Returns nodes removed.
size_t RemoveDeadNodes(Graph& g);

}  // namespace vt
