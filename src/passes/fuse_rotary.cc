// fuse-rotary (passes/transformer_fusion.h): the rotate_half form of rotary position
// embedding becomes one ai.vtensor RotaryEmbedding node (docs/transformer-fusion.md):
//   y = Add(Mul(x, cos), Mul(Concat(Neg(Slice(x, h, end)), Slice(x, 0, h), axis=-1), sin))
// with both Slices over the last axis (constant starts / ends / axes, steps 1), the last dim
// of x known and equal to 2h, every intermediate read once, and cos / sin of rank <= rank(x)
// (either operand order in the Muls and the Add), x of element type f32 (passes/pattern_util.h
// ElemType). cos and sin must broadcast to x without enlarging it: checked here where the dims
// are known, and by the operator in every run.
#include <limits>

#include "passes/pattern_util.h"
#include "passes/symbolic_shapes.h"
#include "vtensor/graph/fused_ops.h"
#include "vtensor/passes/pass.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

// Slice of the last axis of its input [start, end) with step 1; returns the data input.
const std::string* LastAxisSlice(const Graph& g, const SymbolicShapes& ss, const Node* n,
                                 int64_t* start, int64_t* end) {
  if (!IsOp(n, "Slice") || n->opset < 10 || n->inputs.size() < 4) return nullptr;
  auto st = IntsInitializer(g, n->inputs[1]), en = IntsInitializer(g, n->inputs[2]);
  auto ax = IntsInitializer(g, n->inputs[3]);
  std::optional<std::vector<int64_t>> sp = std::vector<int64_t>{1};
  if (n->inputs.size() > 4 && !n->inputs[4].empty()) sp = IntsInitializer(g, n->inputs[4]);
  if (!st || !en || !ax || !sp || st->size() != 1 || en->size() != 1 || ax->size() != 1 ||
      sp->size() != 1 || (*sp)[0] != 1)
    return nullptr;
  auto rank = ss.Rank(n->inputs[0]);
  if (!rank) return nullptr;
  if ((*ax)[0] != -1 && (*ax)[0] != static_cast<int64_t>(*rank) - 1) return nullptr;
  *start = (*st)[0];
  *end = (*en)[0];
  return &n->inputs.front();
}

// `t` (rank <= rank(x)) broadcast to x does not widen it: no dim of t above 1 where x's is 1,
// and no two known dims that differ. Dims not known here the operator checks in every run.
bool KeepsShape(const SymbolicShapes& ss, const std::string& x, const std::string& t, size_t rank) {
  const size_t tr = *ss.Rank(t);
  for (size_t i = 0; i < tr; ++i) {
    auto td = ss.DimOf(t, static_cast<int64_t>(i));
    auto xd = ss.DimOf(x, static_cast<int64_t>(i + rank - tr));
    if (!td || !xd || td->Is(1) || *td == *xd) continue;
    if (xd->Is(1) || (td->known() && xd->known())) return false;
  }
  return true;
}

}  // namespace

size_t FuseRotary(Graph& g) {
  SymbolicShapes ss(g);
  GraphIndex gi(g);
  std::unordered_set<const Node*> removed;
  std::vector<Node> added;
  for (auto& node : g.nodes) {
    Node* cat = &node;
    if (!IsOp(cat, "Concat") || cat->inputs.size() != 2 || removed.count(cat)) continue;
    Node* neg = gi.Producer(cat->inputs[0], "Neg");
    Node* lo = gi.Producer(cat->inputs[1], "Slice");
    if (neg == nullptr || lo == nullptr || gi.Uses(cat->inputs[0]) != 1 || gi.Uses(cat->inputs[1]) != 1)
      continue;
    Node* hi = gi.Producer(neg->inputs[0], "Slice");
    if (hi == nullptr || gi.Uses(neg->inputs[0]) != 1) continue;
    int64_t hs = 0, he = 0, ls = 0, le = 0;
    const std::string* x = LastAxisSlice(g, ss, hi, &hs, &he);
    const std::string* x2 = LastAxisSlice(g, ss, lo, &ls, &le);
    if (x == nullptr || x2 == nullptr || *x != *x2) continue;
    auto rank = ss.Rank(*x);
    auto last = ss.DimOf(*x, -1);
    if (!rank || !last || !last->known() || last->v < 2 || last->v % 2 != 0) continue;
    const int64_t h = last->v / 2;
    const int64_t axis = cat->GetInt("axis", 0);
    if (axis != -1 && axis != static_cast<int64_t>(*rank) - 1) continue;
    if (hs != h || he < 2 * h || ls != 0 || le != h) continue;
    // rot * sin + x * cos
    Node* ms = gi.SoleReader(cat->outputs[0]);
    const std::string* sin = IsOp(ms, "Mul") ? OtherOperand(ms, cat->outputs[0]) : nullptr;
    Node* add = sin ? gi.SoleReader(ms->outputs[0]) : nullptr;
    const std::string* xc = IsOp(add, "Add") ? OtherOperand(add, ms->outputs[0]) : nullptr;
    Node* mc = xc ? gi.Producer(*xc, "Mul") : nullptr;
    const std::string* cos = mc ? OtherOperand(mc, *x) : nullptr;
    if (cos == nullptr || gi.Uses(*xc) != 1 || *sin == cat->outputs[0] || *cos == *x) continue;
    auto sr = ss.Rank(*sin), cr = ss.Rank(*cos);
    if (!sr || !cr || *sr > *rank || *cr > *rank) continue;
    if (!KeepsShape(ss, *x, *cos, *rank) || !KeepsShape(ss, *x, *sin, *rank)) continue;
    // The operator computes f32 (cos and sin share x's type: Mul's type constraint).
    if (ElemType(g, gi, *x) != DType::kFloat32) continue;
    std::vector<Node*> nodes = {cat, neg, lo, hi, ms, add, mc};
    bool clash = false;
    for (Node* n : nodes) clash = clash || removed.count(n);
    if (clash) continue;
    for (Node* n : nodes) removed.insert(n);
    Node r;
    r.op_type = "RotaryEmbedding";
    r.domain = kVtDomain;
    r.opset = 1;
    r.name = add->name.empty() ? add->outputs[0] : add->name;
    r.inputs = {*x, *cos, *sin};
    r.outputs = {add->outputs[0]};
    added.push_back(std::move(r));
  }
  EraseNodes(g, removed);
  for (auto& n : added) g.nodes.push_back(std::move(n));
  if (!added.empty()) RemoveDeadNodes(g);
  return added.size();
}

namespace {
class FuseRotaryPass final : public Pass {
 public:
  const char* name() const override { return "fuse-rotary"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FuseRotary(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }

 private:
  size_t rewrites_ = 0;
};
}  // namespace

std::unique_ptr<Pass> MakeFuseRotaryPass() { return std::make_unique<FuseRotaryPass>(); }

}  // namespace vt
