// fuse-skip-norm (passes/transformer_fusion.h): a residual Add feeding a layer or RMS
// normalisation becomes one com.microsoft SkipLayerNormalization / SkipSimplifiedLayerNormalization
// node (ops/contrib/skip_layer_norm.cc) that adds, normalises and (when the sum is read
// elsewhere, as the residual stream is) writes the sum as input_skip_bias_sum, in one pass over
// the rows (docs/transformer-fusion.md). Conditions: LayerNormalization / RMSNormalization over
// the last axis (axis -1 or rank - 1) of a rank 2 or 3 value (the operators' ranks) with only
// output 0 used and a 1-D f32 Scale (and B); Add of two values whose symbolic shapes are equal
// (no broadcasting); the normalisation the Add's only reader among nodes of this pattern (its
// other readers keep reading the sum).
#include "passes/pattern_util.h"
#include "passes/symbolic_shapes.h"
#include "vtensor/passes/pass.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

bool SameShape(const SymbolicShapes& ss, const std::string& a, const std::string& b) {
  const SymValue* x = ss.Find(a);
  const SymValue* y = ss.Find(b);
  return x != nullptr && y != nullptr && x->has_rank && y->has_rank && x->dims == y->dims &&
         !x->dims.empty();
}

bool Is1D(const Graph& g, const std::string& name) {
  const Tensor* t = name.empty() ? nullptr : g.FindInitializer(name);
  return t != nullptr && t->rank() == 1 && t->dtype() == DType::kFloat32;
}

}  // namespace

size_t FuseSkipNorm(Graph& g) {
  SymbolicShapes ss(g);
  GraphIndex gi(g);
  std::unordered_set<const Node*> removed;
  std::vector<Node> added;
  for (auto& node : g.nodes) {
    Node* norm = &node;
    const bool rms = IsOp(norm, "RMSNormalization");
    if (!rms && !IsOp(norm, "LayerNormalization")) continue;
    if (norm->inputs.size() < 2 || removed.count(norm)) continue;
    bool extra_out = false;
    for (size_t o = 1; o < norm->outputs.size(); ++o) extra_out = extra_out || !norm->outputs[o].empty();
    if (extra_out || norm->GetInt("stash_type", 1) != 1) continue;
    auto rank = ss.Rank(norm->inputs[0]);
    const int64_t axis = norm->GetInt("axis", -1);
    if (!rank || (*rank != 2 && *rank != 3)) continue;
    if (axis != -1 && axis != static_cast<int64_t>(*rank) - 1) continue;
    const std::string bias = !rms && norm->inputs.size() > 2 ? norm->inputs[2] : "";
    if (!Is1D(g, norm->inputs[1]) || (!bias.empty() && !Is1D(g, bias))) continue;
    Node* add = gi.Producer(norm->inputs[0], "Add");
    if (add == nullptr || add->inputs.size() != 2 || removed.count(add)) continue;
    if (!SameShape(ss, add->inputs[0], add->inputs[1])) continue;
    const bool sum_read = gi.Uses(add->outputs[0]) > 1;
    removed.insert(norm);
    removed.insert(add);
    Node n;
    n.op_type = rms ? "SkipSimplifiedLayerNormalization" : "SkipLayerNormalization";
    n.domain = "com.microsoft";
    n.opset = 1;
    n.name = norm->name.empty() ? norm->outputs[0] : norm->name;
    n.inputs = {add->inputs[0], add->inputs[1], norm->inputs[1]};
    if (!bias.empty()) n.inputs.push_back(bias);  // beta
    // Outputs: output, mean, inv_std_var, input_skip_bias_sum.
    n.outputs = {norm->outputs[0]};
    if (sum_read) n.outputs.insert(n.outputs.end(), {"", "", add->outputs[0]});
    Attribute e;
    // Set always: the two ops' defaults differ (1e-5 and 1e-12).
    e.name = "epsilon", e.type = Attribute::Type::kFloat, e.f = norm->GetFloat("epsilon", 1e-5f);
    n.attrs[e.name] = e;
    added.push_back(std::move(n));
  }
  EraseNodes(g, removed);
  for (auto& n : added) g.nodes.push_back(std::move(n));
  return added.size();
}

namespace {
class FuseSkipNormPass final : public Pass {
 public:
  const char* name() const override { return "fuse-skip-norm"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FuseSkipNorm(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }

 private:
  size_t rewrites_ = 0;
};
}  // namespace

std::unique_ptr<Pass> MakeFuseSkipNormPass() { return std::make_unique<FuseSkipNormPass>(); }

}  // namespace vt
