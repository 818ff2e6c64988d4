// Symbolic shapes of one graph, for the passes that fold shape subgraphs and match fusion
// patterns at session creation, where the input shapes are not known yet
// (docs/transformer-fusion.md).
//
// Every dimension, and every element of a small integer tensor (the shape vectors that
// Shape -> Gather -> Unsqueeze -> Concat chains build), is a SymInt: a known integer or a
// symbol. A symbol stands for one run-time value; two occurrences of the same symbol are equal
// at run time in every run. Symbols come from
//   - graph input dims named by a dim_param: one symbol per name (the ONNX IR gives a
//     dimension variable one value across the whole graph, and Session::Run enforces it),
//   - unnamed or unknown input dims, and results no rule can express: a fresh symbol each,
//   - integer arithmetic on symbols (Add, Sub, Mul, Div of shape elements, Concat's summed
//     axis, broadcasting of two different symbols): one symbol per (operation, operands), so
//     Concat(past, k) along the sequence axis and Add(past_len, seq_len) give the same symbol.
// The analysis walks the graph once in topological order; a node without a rule gives its
// outputs an unknown rank. Values of enclosing graphs read by a subgraph are unknown. Nothing
// here changes the graph.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "vtensor/graph/graph.h"

namespace vt {

struct SymInt {
  int64_t v = 0;     // the value, or the symbol's id
  bool sym = false;  // true: a symbol

  static SymInt Known(int64_t x) { return {x, false}; }
  bool known() const { return !sym; }
  bool Is(int64_t x) const { return !sym && v == x; }
  bool operator==(const SymInt& o) const { return v == o.v && sym == o.sym; }
  bool operator!=(const SymInt& o) const { return !(*this == o); }
};

// What is known of one value: its rank and dims, and for int32/int64 tensors of rank <= 1 with
// at most kMaxElems elements, the elements themselves.
struct SymValue {
  static constexpr size_t kMaxElems = 64;
  bool has_rank = false;
  std::vector<SymInt> dims;
  bool has_elems = false;
  std::vector<SymInt> elems;
  DType elem_dtype = DType::kInt64;  // of the elements: kInt64 or kInt32
  bool AllElemsKnown() const;
};

class SymbolicShapes {
 public:
  // Analyses `graph`. Errors never occur: what cannot be derived stays unknown.
  explicit SymbolicShapes(const Graph& graph);

  // What is known of `name`, or null (not a value of this graph, or nothing known).
  const SymValue* Find(const std::string& name) const;
  // Rank of `name` when known.
  std::optional<size_t> Rank(const std::string& name) const;
  // Dim `i` (negative: from the end) of `name` when its rank is known and i is in range.
  std::optional<SymInt> DimOf(const std::string& name, int64_t i) const;
  // "[batch_size,s3,256]" for messages and tests.
  std::string ToString(const std::string& name) const;

  // The symbol a dim_param name stands for (for tests).
  SymInt Named(const std::string& dim_param);

 private:
  SymInt Fresh();
  SymInt Combine(const std::string& op, SymInt a, SymInt b);
  SymInt Broadcast(SymInt a, SymInt b);
  void Visit(const Node& node);
  void VisitFused(const Node& node);  // the ai.vtensor operators of graph/fused_ops.h
  void VisitContrib(const Node& node);  // com.microsoft operators the fusions write
  void VisitResize(const Node& node);   // Resize / Upsample by constant scales or sizes
  void Set(const std::string& name, SymValue v);
  const SymValue* In(const Node& node, size_t i) const;
  // Known int elements of input i (a constant or derived), or nullopt.
  std::optional<std::vector<int64_t>> KnownInts(const Node& node, size_t i) const;

  const Graph& graph_;
  std::unordered_map<std::string, SymValue> values_;
  std::map<std::string, SymInt> named_;
  std::map<std::tuple<std::string, int64_t, bool, int64_t, bool>, SymInt> combined_;
  std::map<int64_t, std::string> symbol_names_;
  int64_t next_symbol_ = 0;
};

}  // namespace vt
