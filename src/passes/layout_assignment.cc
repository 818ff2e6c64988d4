// layout-assignment (docs/design.md §3.3): records on each f32
// weight the physical layout the target's kernels prefer for it (target.h). A weight is an
// initializer read by a consumer the weight-use table marks for target layouts
// (forms/weight_use.h: MatMul B, Gemm B, Conv W). Rules, in order:
//  1. a weight that already has a layout (recorded at capture, or by an earlier pass such as
//     transpose-elimination) keeps it;
//  2. a compiled entry in the file for the target's architecture wins (origin "capture");
//  3. otherwise the target's preference, if it has one (origin "layout-assignment").
// A weight read by several nodes gets the preference of the first one in topological order.
// With no target the pass does nothing. Errors: InvalidArgument for malformed layout metadata.
#include "vtensor/forms/weight_use.h"
#include "vtensor/graph/tensor_meta.h"
#include "vtensor/passes/pass.h"

namespace vt {

namespace {

// The graph that owns initializer `name` as seen from `g` (own graph or an enclosing one),
// or null.
Graph* Owner(Graph& g, const std::string& name) {
  for (Graph* s = &g; s != nullptr; s = const_cast<Graph*>(s->parent)) {
    if (s->initializers.count(name)) return s;
    for (const auto& in : s->inputs)
      if (in.name == name) return nullptr;  // shadowed by a real input
  }
  return nullptr;
}

// Records `target`'s preferred layout on initializer `w` read as `info` (rules 1-3 above).
Status AssignWeight(Graph& g, const TargetInfo& target, const std::string& w,
                    const WeightUseInfo& info) {
  Graph* owner = Owner(g, w);
  if (owner == nullptr) return Status::Ok();
  const Tensor& t = owner->initializers.at(w);
  if (t.dtype() != DType::kFloat32) return Status::Ok();
  if ((GetWeightUseTraits(info.use).matrix && t.rank() != 2) || t.numel() == 0)
    return Status::Ok();
  TensorSpec& spec = owner->values[w];
  if (HasTensorLayout(spec)) {
    VT_RETURN_IF_ERROR_CTX(TensorLayout(spec).status(), "value '" + w + "'");
    return Status::Ok();
  }
  VT_ASSIGN_OR_RETURN(std::optional<Layout> compiled, CompiledLayout(spec, target.architecture));
  if (compiled && compiled->shape() == t.shape()) {
    SetTensorLayout(spec, *compiled, kLayoutOriginCapture);
    return Status::Ok();
  }
  auto pref = PreferredWeightLayout(target, t.shape(), info);
  if (!pref.ok() || !pref->has_value()) return Status::Ok();  // a shape the kernels do not pack
  SetTensorLayout(spec, **pref, "layout-assignment");
  return Status::Ok();
}

Status AssignIn(Graph& g, const TargetInfo& target) {
  VT_ASSIGN_OR_RETURN(std::vector<size_t> order, g.TopologicalOrder());
  for (size_t idx : order) {
    const Node& n = g.nodes[idx];
    for (const WeightConsumer& c : WeightConsumers()) {
      if (!c.target_layout || n.domain != c.domain || n.op_type != c.op_type) continue;
      if (n.inputs.size() <= c.input || n.inputs[c.input].empty()) continue;
      VT_RETURN_IF_ERROR(AssignWeight(g, target, n.inputs[c.input], c.use_of(n)));
    }
  }
  for (auto& n : g.nodes)
    for (auto& [an, a] : n.attrs) {
      if (a.g) VT_RETURN_IF_ERROR(AssignIn(*a.g, target));
      for (auto& sg : a.graphs) VT_RETURN_IF_ERROR(AssignIn(*sg, target));
    }
  return Status::Ok();
}

class LayoutAssignmentPass final : public Pass {
 public:
  const char* name() const override { return "layout-assignment"; }
  Status Run(Model& model, const PassContext& ctx) override {
    if (ctx.target == nullptr) return Status::Ok();
    return AssignIn(*model.graph, *ctx.target);
  }
};

}  // namespace

std::unique_ptr<Pass> MakeLayoutAssignmentPass() {
  return std::make_unique<LayoutAssignmentPass>();
}

}  // namespace vt
