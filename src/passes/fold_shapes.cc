// fold-shapes: resolves the shape subgraphs exporters write (Shape -> Gather -> Unsqueeze ->
// Concat feeding Reshape and Expand) at session creation, so they are not evaluated in every
// run (docs/transformer-fusion.md). With the symbolic shapes of the graph
// (passes/symbolic_shapes.h):
//   - an int64 / int32 value of rank <= 1 whose elements are all known (Shape of static dims
//     and what is computed from it) becomes an initializer;
//   - a Reshape whose target shape is not a constant gets a constant one when every element
//     is known or is the input's own dim at the same position (written as 0, "copy the input
//     dim", which Reshape-5+ defines unless allowzero is set);
//   - an Expand whose shape is not a constant gets a constant one when every element is known
//     or equals the input dim it is aligned with (written as 1, which keeps that dim);
// then nodes and initializers nothing reads any more are removed. Values and results are
// unchanged: a rewritten shape has, in every run that satisfies the graph's dimension
// variables, the value the original subgraph would compute. Top-level graph only.
#include "passes/pattern_util.h"
#include "passes/symbolic_shapes.h"
#include "vtensor/passes/pass.h"

namespace vt {
namespace {

Tensor IntTensor(const std::vector<int64_t>& v, DType dt, bool scalar) {
  Tensor t = Tensor::Empty(dt, scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::kInt64) t.mutable_data<int64_t>()[i] = v[i];
    else t.mutable_data<int32_t>()[i] = static_cast<int32_t>(v[i]);
  }
  return t;
}

}  // namespace

size_t FoldShapes(Graph& g) {
  size_t rewrites = 0;
  SymbolicShapes ss(g);
  std::unordered_set<const Node*> folded;
  // 1. Fully known integer values become initializers.
  for (auto& n : g.nodes) {
    if (n.outputs.size() != 1 || n.outputs[0].empty() || !n.domain.empty() || n.op_type == "Constant")
      continue;
    bool has_sub = false;
    for (const auto& [an, a] : n.attrs) has_sub = has_sub || a.g || !a.graphs.empty();
    if (has_sub) continue;
    const SymValue* v = ss.Find(n.outputs[0]);
    if (v == nullptr || !v->has_rank || v->dims.size() > 1 || !v->AllElemsKnown()) continue;
    std::vector<int64_t> vals;
    for (SymInt e : v->elems) vals.push_back(e.v);
    g.SetInitializer(n.outputs[0], IntTensor(vals, v->elem_dtype, v->dims.empty()));
    folded.insert(&n);
    ++rewrites;
  }
  EraseNodes(g, folded);
  // 2. Reshape and Expand targets. (The analysis above still describes every surviving value.)
  for (auto& n : g.nodes) {
    const bool reshape = IsOp(&n, "Reshape") && n.opset >= 5;
    if ((!reshape && !IsOp(&n, "Expand")) || n.inputs.size() != 2) continue;
    if (g.FindInitializer(n.inputs[1]) != nullptr) continue;
    const SymValue* x = ss.Find(n.inputs[0]);
    const SymValue* s = ss.Find(n.inputs[1]);
    if (x == nullptr || !x->has_rank || s == nullptr || !s->has_elems) continue;
    std::vector<int64_t> spec;
    bool ok = true;
    const size_t k = s->elems.size();
    for (size_t i = 0; i < k && ok; ++i) {
      const SymInt e = s->elems[i];
      if (e.known()) {
        spec.push_back(e.v);
      } else if (reshape) {
        const bool allowzero = n.opset >= 14 && n.GetInt("allowzero", 0) != 0;
        ok = !allowzero && i < x->dims.size() && x->dims[i] == e;
        spec.push_back(0);
      } else {  // Expand: aligned from the right
        const size_t off = k >= x->dims.size() ? k - x->dims.size() : 0;
        ok = k >= x->dims.size() && i >= off && x->dims[i - off] == e;
        spec.push_back(1);
      }
    }
    if (!ok) continue;
    const std::string name = FreshValueName(g, n.outputs[0] + ".vt_shape");
    g.SetInitializer(name, IntTensor(spec, DType::kInt64, false));
    n.inputs[1] = name;
    ++rewrites;
  }
  RemoveDeadNodes(g);
  return rewrites;
}

namespace {
class FoldShapesPass final : public Pass {
 public:
  const char* name() const override { return "fold-shapes"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FoldShapes(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }

 private:
  size_t rewrites_ = 0;
};
}  // namespace

std::unique_ptr<Pass> MakeFoldShapesPass() { return std::make_unique<FoldShapesPass>(); }

}  // namespace vt
