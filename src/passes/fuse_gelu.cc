// fuse-gelu (passes/transformer_fusion.h): the erf and tanh forms of GELU become one Gelu-20
// node (docs/transformer-fusion.md).
#include <cmath>

#include "passes/pattern_util.h"
#include "vtensor/passes/pass.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

bool Near(std::optional<float> v, double want, double rel) {
  return v && std::fabs(*v - want) <= rel * std::fabs(want);
}

bool IsConst(const Graph& g, const std::string* name, double want, double rel = 1e-6) {
  return name != nullptr && Near(ScalarF32(g, *name), want, rel);
}

// y = x * a * 0.5 in one of the association orders exporters write, where `a` (the value
// 1 + erf or 1 + tanh) has `a_node` as producer:
//   Mul(Mul(x, a), 0.5), Mul(x, Mul(a, 0.5)), Mul(Mul(x, 0.5), a)
// Fills the nodes of the product; the last is the one producing y.
bool HalfProduct(const Graph& g, const GraphIndex& gi, const std::string& x, const std::string& a,
                 std::vector<Node*>* nodes) {
  Node* m1 = gi.SoleReader(a);
  if (!IsOp(m1, "Mul")) return false;
  const std::string* o = OtherOperand(m1, a);
  if (o == nullptr) return false;
  if (*o == x) {  // Mul(Mul(x, a), 0.5)
    Node* m2 = gi.SoleReader(m1->outputs[0]);
    if (!IsOp(m2, "Mul") || !IsConst(g, OtherOperand(m2, m1->outputs[0]), 0.5, 0)) return false;
    *nodes = {m1, m2};
    return true;
  }
  if (IsConst(g, o, 0.5, 0)) {  // Mul(x, Mul(a, 0.5))
    Node* m2 = gi.SoleReader(m1->outputs[0]);
    const std::string* ox = IsOp(m2, "Mul") ? OtherOperand(m2, m1->outputs[0]) : nullptr;
    if (ox == nullptr || *ox != x) return false;
    *nodes = {m1, m2};
    return true;
  }
  // Mul(Mul(x, 0.5), a): the other operand is h = x * 0.5, read only here.
  Node* h = gi.Producer(*o, "Mul");
  if (h == nullptr || gi.Uses(*o) != 1) return false;
  const std::string* hx = OtherOperand(h, x);
  if (hx == nullptr || !IsConst(g, hx, 0.5, 0)) return false;
  *nodes = {h, m1};
  return true;
}

// x^3 as Pow(x, 3) or Mul(x, Mul(x, x)) (either order); fills its nodes.
bool IsCube(const Graph& g, const GraphIndex& gi, const std::string& v, const std::string& x,
            std::vector<Node*>* nodes) {
  Node* p = gi.Producer(v);
  if (IsOp(p, "Pow") && p->inputs.size() == 2 && p->inputs[0] == x &&
      Near(ScalarF32(g, p->inputs[1]), 3.0, 0)) {
    nodes->push_back(p);
    return true;
  }
  if (!IsOp(p, "Mul")) return false;
  const std::string* o = OtherOperand(p, x);
  if (o == nullptr) return false;
  Node* sq = gi.Producer(*o, "Mul");
  if (sq == nullptr || gi.Uses(*o) != 1 || sq->inputs[0] != x || sq->inputs[1] != x) return false;
  nodes->push_back(p);
  nodes->push_back(sq);
  return true;
}

Node MakeGelu(const std::string& x, const std::string& out, const std::string& name, bool tanh) {
  Node n;
  n.op_type = "Gelu";
  n.opset = 20;
  n.name = name;
  n.inputs = {x};
  n.outputs = {out};
  Attribute a;
  a.name = "approximate", a.type = Attribute::Type::kString, a.s = tanh ? "tanh" : "none";
  n.attrs[a.name] = a;
  return n;
}

}  // namespace

size_t FuseGelu(Graph& g) {
  GraphIndex gi(g);
  std::unordered_set<const Node*> removed;
  std::vector<Node> added;
  for (auto& node : g.nodes) {
    Node* f = &node;  // Erf or Tanh
    const bool tanh = IsOp(f, "Tanh");
    if ((!tanh && !IsOp(f, "Erf")) || f->inputs.size() != 1 || removed.count(f)) continue;
    std::vector<Node*> nodes = {f};
    std::string x;
    Node* pre = gi.Producer(f->inputs[0]);
    if (pre == nullptr || gi.Uses(f->inputs[0]) != 1) continue;
    nodes.push_back(pre);
    if (!tanh) {  // Erf(x / sqrt(2)) or Erf(x * (1 / sqrt(2)))
      if (IsOp(pre, "Div") && pre->inputs.size() == 2 && IsConst(g, &pre->inputs[1], std::sqrt(2.0)))
        x = pre->inputs[0];
      else if (IsOp(pre, "Mul"))
        for (int side = 0; side < 2 && x.empty(); ++side)
          if (IsConst(g, &pre->inputs[static_cast<size_t>(1 - side)], 1.0 / std::sqrt(2.0)))
            x = pre->inputs[static_cast<size_t>(side)];
    } else {  // Tanh(sqrt(2/pi) * (x + 0.044715 * x^3))
      if (!IsOp(pre, "Mul")) continue;
      for (int side = 0; side < 2 && x.empty(); ++side) {
        if (!IsConst(g, &pre->inputs[static_cast<size_t>(1 - side)], std::sqrt(2.0 / M_PI))) continue;
        const std::string& s = pre->inputs[static_cast<size_t>(side)];
        Node* add = gi.Producer(s, "Add");
        if (add == nullptr || gi.Uses(s) != 1 || add->inputs.size() != 2) continue;
        for (int a = 0; a < 2 && x.empty(); ++a) {
          const std::string& cand = add->inputs[static_cast<size_t>(a)];
          const std::string& term = add->inputs[static_cast<size_t>(1 - a)];
          Node* c = gi.Producer(term, "Mul");  // 0.044715 * x^3
          if (c == nullptr || gi.Uses(term) != 1 || c->inputs.size() != 2) continue;
          for (int b = 0; b < 2 && x.empty(); ++b) {
            if (!IsConst(g, &c->inputs[static_cast<size_t>(1 - b)], 0.044715)) continue;
            std::vector<Node*> cube;
            if (gi.Uses(c->inputs[static_cast<size_t>(b)]) == 1 &&
                IsCube(g, gi, c->inputs[static_cast<size_t>(b)], cand, &cube)) {
              x = cand;
              nodes.push_back(add);
              nodes.push_back(c);
              nodes.insert(nodes.end(), cube.begin(), cube.end());
            }
          }
        }
      }
    }
    if (x.empty()) continue;
    Node* one = gi.SoleReader(f->outputs[0]);
    if (!IsOp(one, "Add") || !IsConst(g, OtherOperand(one, f->outputs[0]), 1.0, 0)) continue;
    nodes.push_back(one);
    std::vector<Node*> prod;
    if (!HalfProduct(g, gi, x, one->outputs[0], &prod)) continue;
    nodes.insert(nodes.end(), prod.begin(), prod.end());
    bool clash = false;
    for (Node* n : nodes) clash = clash || removed.count(n);
    if (clash) continue;
    for (Node* n : nodes) removed.insert(n);
    Node* last = prod.back();
    added.push_back(MakeGelu(x, last->outputs[0], last->name, tanh));
  }
  EraseNodes(g, removed);
  for (auto& n : added) g.nodes.push_back(std::move(n));
  if (!added.empty()) RemoveDeadNodes(g);
  return added.size();
}

namespace {
class FuseGeluPass final : public Pass {
 public:
  const char* name() const override { return "fuse-gelu"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FuseGelu(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }

 private:
  size_t rewrites_ = 0;
};
}  // namespace

std::unique_ptr<Pass> MakeFuseGeluPass() { return std::make_unique<FuseGeluPass>(); }

}  // namespace vt
