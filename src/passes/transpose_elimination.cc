// transpose-elimination ("transpose becomes a stride swap"): a Transpose of a
// constant 2-D weight (an initializer or a Constant node's value) whose only consumers are
// Gemm / MatMul nodes disappears. It runs before fold-initializers, which would otherwise
// fold the Transpose into a transposed copy of the weight.
//  * Gemm consumers absorb it into their transA / transB flag and read the weight directly.
//  * MatMul consumers (only when a target is named: otherwise no layout may be invented) read
//    a new initializer, named like the Transpose output, that is a strided view of the
//    weight's bytes (no copy): its layout has the two strides swapped, its identity is the
//    weight's identity and vt.alias_of names the weight.
// The runtime computes identical outputs either way (its GEMMs read any strided operand).
// Errors: none beyond malformed layouts already present in metadata (InvalidArgument).
#include <set>
#include <unordered_map>

#include "vtensor/graph/tensor_meta.h"
#include "vtensor/passes/pass.h"

namespace vt {

namespace {

struct Use {
  size_t node;
  size_t input;
};

// Names read by nodes of nested subgraphs (outer-scope references) of g's nodes.
std::set<std::string> SubgraphReads(const Graph& g) {
  std::set<std::string> out;
  for (const auto& n : g.nodes)
    for (const auto& [an, a] : n.attrs) {
      if (a.g)
        for (const auto& r : OuterReferences(*a.g)) out.insert(r);
      for (const auto& sg : a.graphs)
        for (const auto& r : OuterReferences(*sg)) out.insert(r);
    }
  return out;
}

bool IsSwap2D(const Node& t, const Tensor& w) {
  if (w.rank() != 2) return false;
  std::vector<int64_t> perm = t.GetInts("perm");
  return perm.empty() || perm == std::vector<int64_t>{1, 0};
}

// The weight a Transpose reads: an initializer, or the value of a Constant node (then
// `const_node` is its index, else g.nodes.size()). Null when it is neither.
const Tensor* TransposedWeight(const Graph& g, const std::string& w_name,
                               const std::vector<bool>& removed, size_t* const_node) {
  *const_node = g.nodes.size();
  if (auto it = g.initializers.find(w_name); it != g.initializers.end()) return &it->second;
  const Tensor* w = nullptr;
  for (size_t ci = 0; ci < g.nodes.size(); ++ci) {
    const Node& c = g.nodes[ci];
    const Attribute* v = c.FindAttr("value");
    if (!removed[ci] && c.op_type == "Constant" && c.domain.empty() && c.outputs.size() == 1 &&
        c.outputs[0] == w_name && v != nullptr && v->type == Attribute::Type::kTensor) {
      w = &v->t;
      *const_node = ci;
    }
  }
  return w;
}

// Who reads `out`, and whether they are all Gemm A/B operands or MatMul B operands.
struct Readers {
  std::vector<Use> uses;
  bool all_gemm = true, all_gemm_or_matmul = true;
};

Readers ReadersOf(const Graph& g, const std::string& out, const std::vector<bool>& removed) {
  Readers r;
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    if (removed[ni]) continue;
    const Node& c = g.nodes[ni];
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      if (c.inputs[i] != out) continue;
      r.uses.push_back({ni, i});
      const bool gemm = c.op_type == "Gemm" && c.domain.empty() && i < 2;
      const bool matmul = c.op_type == "MatMul" && c.domain.empty() && i == 1;
      r.all_gemm = r.all_gemm && gemm;
      r.all_gemm_or_matmul = r.all_gemm_or_matmul && (gemm || matmul);
    }
  }
  return r;
}

// A Constant node's value becomes an initializer named after its output (its canonical
// identity), as fold-initializers would make it.
void PromoteConstant(Graph& g, const Node& constant, const std::string& w_name) {
  Tensor c = constant.FindAttr("value")->t;
  c.set_name(w_name);
  TensorSpec& cs = g.values[w_name];
  SymShape s;
  for (int64_t d : c.shape()) s.push_back(Dim{d, ""});
  cs.mutable_type() = TypeInfo::Tensor(c.dtype(), s);
  cs.set_identity(w_name);
  if (auto e = EncodingFromDType(c.dtype())) SetTensorEncoding(cs, *e);
  g.initializers[w_name] = std::move(c);
}

// Gemm readers read W with their transA / transB flag flipped.
void FlipGemmFlags(Graph& g, const std::vector<Use>& uses, const std::string& w_name) {
  for (const Use& u : uses) {
    Node& c = g.nodes[u.node];
    if (c.op_type != "Gemm") continue;
    const std::string flag = u.input == 0 ? "transA" : "transB";
    Attribute a;
    a.name = flag;
    a.type = Attribute::Type::kInt;
    a.i = c.GetInt(flag, 0) != 0 ? 0 : 1;
    c.attrs[flag] = a;
    c.inputs[u.input] = w_name;
  }
}

// MatMul readers read a strided view of W under the Transpose output's name `out`: its layout
// has the two strides swapped, its identity is W's and vt.alias_of names W.
Status AddTransposedView(Graph& g, const std::string& w_name, const std::string& out) {
  const Tensor& w = g.initializers.find(w_name)->second;
  VT_ASSIGN_OR_RETURN(Layout view, w.layout().Transpose({1, 0}));
  Tensor v = w.WithLayout(view);
  v.set_name(w.name().empty() ? w_name : w.name());
  const TensorSpec& wspec = g.values[w_name];
  TensorSpec spec = g.values[out];
  SymShape s;
  for (int64_t d : v.shape()) s.push_back(Dim{d, ""});
  spec.mutable_type() = TypeInfo::Tensor(w.dtype(), s);
  spec.set_identity(wspec.identity().value_or(w_name));
  SetTensorAliasOf(spec, w_name);
  Encoding enc = TensorEncoding(wspec).value_or(
      EncodingFromDType(w.dtype()).value_or(Encoding::kUnspecified));
  if (enc != Encoding::kUnspecified) SetTensorEncoding(spec, enc);
  VT_ASSIGN_OR_RETURN(Layout meta_layout,
                      Layout::Strided(view.shape(), view.strides(), view.offset(), enc));
  SetTensorLayout(spec, meta_layout, "transpose-elimination");
  g.values[out] = spec;
  g.initializers[out] = std::move(v);
  return Status::Ok();
}

// True when a node not yet removed, a subgraph, a graph output or a graph input reads `name`.
bool StillRead(const Graph& g, const std::string& name, const std::vector<bool>& removed,
               const std::set<std::string>& outer_reads,
               const std::set<std::string>& graph_outputs) {
  if (outer_reads.count(name) || graph_outputs.count(name)) return true;
  for (size_t ni = 0; ni < g.nodes.size(); ++ni)
    if (!removed[ni])
      for (const auto& in : g.nodes[ni].inputs)
        if (in == name) return true;
  for (const auto& in : g.inputs)
    if (in.name == name) return true;
  return false;
}

Status EliminateIn(Graph& g, const PassContext& ctx) {
  for (auto& n : g.nodes)
    for (auto& [an, a] : n.attrs) {
      if (a.g) VT_RETURN_IF_ERROR(EliminateIn(*a.g, ctx));
      for (auto& sg : a.graphs) VT_RETURN_IF_ERROR(EliminateIn(*sg, ctx));
    }
  const std::set<std::string> outer_reads = SubgraphReads(g);
  std::set<std::string> graph_outputs;
  for (const auto& o : g.outputs) graph_outputs.insert(o.name);

  std::vector<bool> removed(g.nodes.size(), false);
  for (size_t ti = 0; ti < g.nodes.size(); ++ti) {
    const Node& t = g.nodes[ti];
    if (t.op_type != "Transpose" || !t.domain.empty() || t.inputs.size() != 1 ||
        t.outputs.size() != 1)
      continue;
    const std::string w_name = t.inputs[0], out = t.outputs[0];
    size_t const_node = 0;
    const Tensor* w = TransposedWeight(g, w_name, removed, &const_node);
    if (w == nullptr || !IsSwap2D(t, *w)) continue;
    if (graph_outputs.count(out) || outer_reads.count(out)) continue;
    const Readers readers = ReadersOf(g, out, removed);
    if (readers.uses.empty() || !readers.all_gemm_or_matmul) continue;
    if (!readers.all_gemm && ctx.target == nullptr) continue;  // a view needs a layout: none invented
    if (const_node < g.nodes.size()) {
      PromoteConstant(g, g.nodes[const_node], w_name);
      removed[const_node] = true;
    }
    FlipGemmFlags(g, readers.uses, w_name);
    if (!readers.all_gemm) VT_RETURN_IF_ERROR(AddTransposedView(g, w_name, out));
    removed[ti] = true;
    // Drop W when nothing reads it any more (the view keeps its storage alive).
    if (!StillRead(g, w_name, removed, outer_reads, graph_outputs)) {
      g.initializers.erase(w_name);
      if (!readers.all_gemm) g.values.erase(w_name);
    }
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!removed[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  return Status::Ok();
}

class TransposeEliminationPass final : public Pass {
 public:
  const char* name() const override { return "transpose-elimination"; }
  Status Run(Model& model, const PassContext& ctx) override {
    return EliminateIn(*model.graph, ctx);
  }
};

}  // namespace

std::unique_ptr<Pass> MakeTransposeEliminationPass() {
  return std::make_unique<TransposeEliminationPass>();
}

}  // namespace vt
