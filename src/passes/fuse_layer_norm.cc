// fuse-layer-norm (passes/transformer_fusion.h): LayerNorm and RMSNorm decompositions become
// LayerNormalization-17 / RMSNormalization-23 nodes (docs/transformer-fusion.md).
#include <cmath>

#include "passes/pattern_util.h"
#include "passes/symbolic_shapes.h"
#include "vtensor/passes/pass.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

// `n` is a ReduceMean over exactly the last axis of its input, keeping dims.
bool MeanOverLastAxis(const Graph& g, const SymbolicShapes& ss, const Node* n) {
  if (!IsOp(n, "ReduceMean") || n->inputs.empty() || n->GetInt("keepdims", 1) != 1) return false;
  std::optional<std::vector<int64_t>> axes;
  if (n->opset >= 18) {
    if (n->inputs.size() < 2) return false;
    axes = IntsInitializer(g, n->inputs[1]);
  } else {
    axes = n->GetInts("axes");
  }
  if (!axes || axes->size() != 1) return false;
  if ((*axes)[0] == -1) return true;
  auto rank = ss.Rank(n->inputs[0]);
  return rank && static_cast<int64_t>(*rank) - 1 == (*axes)[0];
}

bool Near(std::optional<float> v, double want, double rel = 1e-6) {
  return v && std::fabs(*v - want) <= rel * std::fabs(want);
}

// Squares of `x`: Pow(x, 2) or Mul(x, x).
bool IsSquareOf(const Graph& g, const Node* n, const std::string& x) {
  if (IsOp(n, "Pow")) return n->inputs.size() == 2 && n->inputs[0] == x && Near(ScalarF32(g, n->inputs[1]), 2.0, 0);
  return IsOp(n, "Mul") && n->inputs.size() == 2 && n->inputs[0] == x && n->inputs[1] == x;
}

// A constant f32 per-channel parameter over the last axis of x: the last dim is x's (known),
// every other dim is 1, and the rank is at most x's (so the product keeps x's shape).
bool IsLastAxisParam(const Graph& g, const SymbolicShapes& ss, const std::string& name,
                     const std::string& x) {
  const Tensor* t = F32Initializer(g, name);
  const auto rank = ss.Rank(x);
  const auto last = ss.DimOf(x, -1);
  if (t == nullptr || t->rank() < 1 || !rank || static_cast<size_t>(t->rank()) > *rank) return false;
  if (!last || !last->Is(t->dim(t->rank() - 1))) return false;  // one value per channel
  for (int d = 0; d + 1 < t->rank(); ++d)
    if (t->dim(d) != 1) return false;
  return true;
}

// The single reader of `v` if it has op type `op`.
Node* SoleOp(const GraphIndex& gi, const std::string& v, const char* op) {
  Node* n = gi.SoleReader(v);
  return IsOp(n, op) ? n : nullptr;
}

Node MakeNorm(bool rms, const std::string& x, const std::string& scale, const std::string& bias,
              float eps, const std::string& out, const std::string& name) {
  Node n;
  n.op_type = rms ? "RMSNormalization" : "LayerNormalization";
  n.opset = rms ? 23 : 17;
  n.name = name;
  n.inputs = {x, scale};
  if (!bias.empty()) n.inputs.push_back(bias);
  n.outputs = {out};
  Attribute a;
  a.name = "axis", a.type = Attribute::Type::kInt, a.i = -1;
  n.attrs["axis"] = a;
  Attribute e;
  e.name = "epsilon", e.type = Attribute::Type::kFloat, e.f = eps;
  n.attrs["epsilon"] = e;
  return n;
}

}  // namespace

size_t FuseLayerNorm(Graph& g) {
  SymbolicShapes ss(g);
  GraphIndex gi(g);
  std::unordered_set<const Node*> removed;
  std::vector<Node> added;
  for (auto& sq_node : g.nodes) {
    // Anchor: the square of the value whose mean square is taken.
    Node* sq = &sq_node;
    if ((!IsOp(sq, "Pow") && !IsOp(sq, "Mul")) || sq->outputs.size() != 1) continue;
    const std::string d = sq->inputs.empty() ? "" : sq->inputs[0];
    if (d.empty() || !IsSquareOf(g, sq, d)) continue;
    Node* var = SoleOp(gi, sq->outputs[0], "ReduceMean");
    if (var == nullptr || !MeanOverLastAxis(g, ss, var)) continue;
    Node* add = SoleOp(gi, var->outputs[0], "Add");
    const std::string* eps_name = add ? OtherOperand(add, var->outputs[0]) : nullptr;
    auto eps = eps_name ? ScalarF32(g, *eps_name) : std::nullopt;
    if (!eps || !(*eps >= 0)) continue;
    Node* sqrt = SoleOp(gi, add->outputs[0], "Sqrt");
    if (sqrt == nullptr) continue;
    // Normalised value: Div(d, sqrt), or d * (1 / sqrt) with Div(1, .) or Reciprocal.
    Node* norm = nullptr;
    Node* recip = nullptr;
    Node* s_reader = gi.SoleReader(sqrt->outputs[0]);
    if (IsOp(s_reader, "Div") && s_reader->inputs.size() == 2 && s_reader->inputs[1] == sqrt->outputs[0]) {
      if (s_reader->inputs[0] == d) {
        norm = s_reader;
      } else if (Near(ScalarF32(g, s_reader->inputs[0]), 1.0, 0)) {
        recip = s_reader;
      }
    } else if (IsOp(s_reader, "Reciprocal")) {
      recip = s_reader;
    }
    if (recip != nullptr) {
      Node* m = SoleOp(gi, recip->outputs[0], "Mul");
      const std::string* other = m ? OtherOperand(m, recip->outputs[0]) : nullptr;
      if (other == nullptr || *other != d) continue;
      norm = m;
    }
    if (norm == nullptr) continue;
    // LayerNorm: d = Sub(x, ReduceMean(x)), read by the square and the normalisation only.
    Node* sub = gi.Producer(d, "Sub");
    Node* mean = nullptr;
    std::string x = d;
    if (sub != nullptr && sub->inputs.size() == 2) {
      Node* m = gi.Producer(sub->inputs[1], "ReduceMean");
      if (m != nullptr && m->inputs[0] == sub->inputs[0] && MeanOverLastAxis(g, ss, m) &&
          gi.Uses(m->outputs[0]) == 1) {
        mean = m;
        x = sub->inputs[0];
      }
    }
    const bool rms = mean == nullptr;
    // Every read of d must be inside the pattern (the square, and the normalisation).
    const int d_reads = (sq->op_type == "Mul" ? 2 : 1) + 1;
    if (!rms && gi.Uses(d) != d_reads) continue;
    // Optional scale and bias (constants over the last axis).
    std::string out = norm->outputs[0], scale, bias;
    std::vector<Node*> tail;
    if (Node* m = SoleOp(gi, out, "Mul"); m != nullptr) {
      const std::string* s = OtherOperand(m, out);
      if (s != nullptr && IsLastAxisParam(g, ss, *s, x)) {
        scale = *s;
        tail.push_back(m);
        out = m->outputs[0];
        if (!rms)
          if (Node* a = SoleOp(gi, out, "Add"); a != nullptr) {
            const std::string* b = OtherOperand(a, out);
            if (b != nullptr && IsLastAxisParam(g, ss, *b, x)) {
              bias = *b;
              tail.push_back(a);
              out = a->outputs[0];
            }
          }
      }
    }
    if (scale.empty()) continue;  // without a constant scale the op would need a ones tensor
    std::vector<const Node*> all = {sq, var, add, sqrt, norm};
    if (recip) all.push_back(recip);
    if (mean) all.push_back(mean), all.push_back(sub);
    for (Node* t : tail) all.push_back(t);
    bool clash = false;
    for (const Node* n : all) clash = clash || removed.count(n);
    if (clash) continue;
    for (const Node* n : all) removed.insert(n);
    const std::string name = tail.back()->name.empty() ? out : tail.back()->name;
    const std::string row_scale = AsRowInitializer(g, scale);
    const std::string row_bias = bias.empty() ? "" : AsRowInitializer(g, bias);
    added.push_back(MakeNorm(rms, x, row_scale, row_bias, *eps, out, name));
  }
  EraseNodes(g, removed);
  for (auto& n : added) g.nodes.push_back(std::move(n));
  if (!added.empty()) RemoveDeadNodes(g);
  return added.size();
}

namespace {
class FuseLayerNormPass final : public Pass {
 public:
  const char* name() const override { return "fuse-layer-norm"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FuseLayerNorm(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }

 private:
  size_t rewrites_ = 0;
};
}  // namespace

std::unique_ptr<Pass> MakeFuseLayerNormPass() { return std::make_unique<FuseLayerNormPass>(); }

}  // namespace vt
