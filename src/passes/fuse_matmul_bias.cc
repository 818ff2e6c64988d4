// fuse-matmul-bias (passes/transformer_fusion.h): MatMul by a constant weight with its bias
// Add and activation becomes one ai.vtensor Dense node whose GEMM adds the bias in its
// epilogue (docs/transformer-fusion.md):
//   MatMul(x, W)            W an f32 initializer [K, N]
//   [Add(., b) | Add(b, .)] b an f32 initializer [N]
//   [Gelu | x * Sigmoid(x) [* u]]   the activation (SiLU, SwiGLU with u)
// Each value inside the chain has exactly one reader (x * Sigmoid(x) reads x twice: those two
// nodes must be its only readers). A MatMul with neither bias nor activation is left alone.
// x * Sigmoid(x) after anything else becomes com.microsoft QuickGelu with alpha 1 (the same
// function, ops/contrib/gelu_ops.cc), x * Sigmoid(x) * u ai.vtensor Activation; both, like
// Dense, compute on the GELU kernel family.
#include "passes/pattern_util.h"
#include "vtensor/graph/fused_ops.h"
#include "vtensor/passes/pass.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

// An f32 initializer [n] (a bias of higher rank could give the sum a higher rank than the
// product's).
bool IsBias(const Graph& g, const std::string& name, int64_t n) {
  const Tensor* t = F32Initializer(g, name);
  return t != nullptr && t->rank() == 1 && t->dim(0) == n;
}

// The activation reading `v` (all of v's readers are part of it): sets the activation name,
// the nodes and the value it produces. SiLU may be followed by a multiplier (SwiGLU).
bool ActivationAfter(const GraphIndex& gi, const std::string& v, std::string* act,
                     std::vector<Node*>* nodes, std::string* out, std::string* mul) {
  const auto& readers = gi.Readers(v);
  if (readers.size() == 1 && gi.Uses(v) == 1) {
    Node* r = readers[0];
    if (IsOp(r, "Gelu") && r->inputs.size() == 1) {
      const std::string approx = r->GetString("approximate", "none");
      if (approx != "none" && approx != "tanh") return false;
      *act = approx == "tanh" ? "GeluTanh" : "Gelu";
      nodes->push_back(r);
      *out = r->outputs[0];
      return true;
    }
    return false;
  }
  // x * Sigmoid(x): readers Sigmoid and Mul(x, sigmoid).
  if (readers.size() != 2 || gi.Uses(v) != 2) return false;
  Node* sig = IsOp(readers[0], "Sigmoid") ? readers[0] : readers[1];
  Node* m = sig == readers[0] ? readers[1] : readers[0];
  if (!IsOp(sig, "Sigmoid") || !IsOp(m, "Mul") || gi.Uses(sig->outputs[0]) != 1) return false;
  const std::string* o = OtherOperand(m, v);
  if (o == nullptr || *o != sig->outputs[0]) return false;
  *act = "Silu";
  nodes->push_back(sig);
  nodes->push_back(m);
  *out = m->outputs[0];
  if (Node* u = gi.SoleReader(m->outputs[0]); IsOp(u, "Mul")) {
    const std::string* w = OtherOperand(u, m->outputs[0]);
    if (w != nullptr && *w != m->outputs[0]) {
      *mul = *w;
      nodes->push_back(u);
      *out = u->outputs[0];
    }
  }
  return true;
}

Node FusedNode(const char* op, const std::string& name, std::vector<std::string> inputs,
               const std::string& out, const std::string& act) {
  Node n;
  n.op_type = op;
  n.domain = kVtDomain;
  n.opset = 1;
  n.name = name;
  while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
  n.inputs = std::move(inputs);
  n.outputs = {out};
  Attribute a;
  a.name = kActivationAttr, a.type = Attribute::Type::kString, a.s = act;
  n.attrs[a.name] = a;
  return n;
}

}  // namespace

size_t FuseMatMulBias(Graph& g) {
  GraphIndex gi(g);
  std::unordered_set<const Node*> removed;
  std::vector<Node> added;
  auto commit = [&](const std::vector<Node*>& nodes) {
    for (Node* n : nodes)
      if (removed.count(n)) return false;
    for (Node* n : nodes) removed.insert(n);
    return true;
  };
  for (auto& node : g.nodes) {
    Node* mm = &node;
    if (!IsOp(mm, "MatMul") || mm->inputs.size() != 2 || removed.count(mm)) continue;
    const Tensor* w = F32Initializer(g, mm->inputs[1]);
    if (w == nullptr || w->rank() != 2) continue;
    std::vector<Node*> nodes = {mm};
    std::string out = mm->outputs[0], bias, act, mul;
    if (Node* a = gi.SoleReader(out); IsOp(a, "Add")) {
      const std::string* b = OtherOperand(a, out);
      if (b != nullptr && IsBias(g, *b, w->dim(1))) {
        bias = *b;
        nodes.push_back(a);
        out = a->outputs[0];
      }
    }
    std::string act_out;
    if (ActivationAfter(gi, out, &act, &nodes, &act_out, &mul)) out = act_out;
    if (bias.empty() && act.empty()) continue;
    if (!commit(nodes)) continue;
    Node* last = nodes.back();
    const std::string row_bias = bias.empty() ? "" : AsRowInitializer(g, bias);
    added.push_back(FusedNode("Dense", last->name.empty() ? out : last->name,
                              {mm->inputs[0], mm->inputs[1], row_bias, mul}, out, act));
  }
  // SiLU / SwiGLU after anything else: QuickGelu(alpha 1) / Activation.
  for (auto& node : g.nodes) {
    Node* sig = &node;
    if (!IsOp(sig, "Sigmoid") || sig->inputs.size() != 1 || removed.count(sig)) continue;
    const std::string v = sig->inputs[0];
    std::vector<Node*> nodes;
    std::string act, out, mul;
    if (!ActivationAfter(gi, v, &act, &nodes, &out, &mul) || act != "Silu") continue;
    // ai.vtensor Activation computes f32 (QuickGelu takes every float type).
    if (!mul.empty() && (ElemType(g, gi, v) != DType::kFloat32 || ElemType(g, gi, mul) != DType::kFloat32))
      continue;
    if (!commit(nodes)) continue;
    Node* last = nodes.back();
    Node n = FusedNode("Activation", last->name.empty() ? out : last->name, {v, mul}, out, act);
    if (mul.empty()) {
      n.op_type = "QuickGelu";
      n.domain = "com.microsoft";
      n.attrs.clear();
      Attribute alpha;
      alpha.name = "alpha", alpha.type = Attribute::Type::kFloat, alpha.f = 1.0f;
      n.attrs[alpha.name] = alpha;
    }
    added.push_back(std::move(n));
  }
  EraseNodes(g, removed);
  for (auto& n : added) g.nodes.push_back(std::move(n));
  if (!added.empty()) RemoveDeadNodes(g);
  return added.size();
}

namespace {
class FuseMatMulBiasPass final : public Pass {
 public:
  const char* name() const override { return "fuse-matmul-bias"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FuseMatMulBias(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }

 private:
  size_t rewrites_ = 0;
};
}  // namespace

std::unique_ptr<Pass> MakeFuseMatMulBiasPass() { return std::make_unique<FuseMatMulBiasPass>(); }

}  // namespace vt
