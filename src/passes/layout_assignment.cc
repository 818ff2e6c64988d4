// layout-assignment (docs/design.md §3.3): records on each f32
// weight the physical layout the target's kernels prefer for it (target.h). A weight is an
// initializer read as MatMul B, Gemm B or Conv W. Rules, in order:
//  1. a weight that already has a layout (recorded at capture, or by an earlier pass such as
//     transpose-elimination) keeps it;
//  2. a compiled entry in the file for the target's architecture wins (origin "capture");
//  3. otherwise the target's preference, if it has one (origin "layout-assignment").
// A weight read by several nodes gets the preference of the first one in topological order.
// With no target the pass does nothing. Errors: InvalidArgument for malformed layout metadata.
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

bool UnitStridesAndPads(const Node& n) {
  for (int64_t s : n.GetInts("strides"))
    if (s != 1) return false;
  for (int64_t p : n.GetInts("pads"))
    if (p != 0) return false;
  return true;
}

Status AssignIn(Graph& g, const TargetInfo& target) {
  VT_ASSIGN_OR_RETURN(std::vector<size_t> order, g.TopologicalOrder());
  for (size_t idx : order) {
    const Node& n = g.nodes[idx];
    if (!n.domain.empty() || n.inputs.size() < 2 || n.inputs[1].empty()) continue;
    WeightUseInfo info;
    if (n.op_type == "MatMul") {
      info.use = WeightUse::kMatMulB;
    } else if (n.op_type == "Gemm") {
      info.use = n.GetInt("transB", 0) != 0 ? WeightUse::kGemmBTrans : WeightUse::kGemmB;
    } else if (n.op_type == "Conv") {
      info.use = WeightUse::kConvFilter;
      info.group = n.GetInt("group", 1);
      info.unit_strides_pads = UnitStridesAndPads(n);
    } else {
      continue;
    }
    const std::string& w = n.inputs[1];
    Graph* owner = Owner(g, w);
    if (owner == nullptr) continue;
    const Tensor& t = owner->initializers.at(w);
    if (t.dtype() != DType::kFloat32) continue;
    if ((info.use != WeightUse::kConvFilter && t.rank() != 2) || t.numel() == 0) continue;
    TensorSpec& spec = owner->values[w];
    if (HasTensorLayout(spec)) {
      VT_RETURN_IF_ERROR_CTX(TensorLayout(spec).status(), "value '" + w + "'");
      continue;
    }
    VT_ASSIGN_OR_RETURN(std::optional<Layout> compiled, CompiledLayout(spec, target.architecture));
    if (compiled && compiled->shape() == t.shape()) {
      SetTensorLayout(spec, *compiled, kLayoutOriginCapture);
      continue;
    }
    auto pref = PreferredWeightLayout(target, t.shape(), info);
    if (!pref.ok() || !pref->has_value()) continue;  // a shape the kernels do not pack
    SetTensorLayout(spec, **pref, "layout-assignment");
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
