// fuse-attention (passes/transformer_fusion.h): scaled dot-product attention subgraphs become
// one ai.vtensor Attention node (docs/transformer-fusion.md, graph/fused_ops.h).
//
// Anchor: a Softmax over the last axis of rank-4 scores. Walking back:
//   [Cast(to float)] <- [Add(scores, mask)] <- Div(mm, c) | Mul(mm, c) <- mm = MatMul(Q, KT)
// and forward: ctx = MatMul(softmax, V) [-> Transpose(0,2,1,3) -> Reshape([B, S, N*Dv])].
// Every value inside that chain has exactly one reader. The operands are then traced through
// their layout ops:
//   Q  = Transpose(Reshape(q3, [B, S, N, D]), 0,2,1,3)  -> q3 ([B, S, N*D]); else Q itself
//   KT = Transpose(K, 0,1,3,2)                          -> K
//      = Transpose(Reshape(k3, [B, T, N, D]), 0,2,3,1)  -> k3
//   K or V = Reshape(Expand(Unsqueeze(x, 2), [B, Nkv, g, T, D]), [B, Nkv*g, T, D])  -> x with
//      kv_num_heads = Nkv (repeat_kv; the same g for K and V)
//   V  = Transpose(Reshape(v3, [B, T, N, D]), 0,2,1,3)  -> v3
// where the Reshapes must be pure splits of the last axis (symbolic dims, passes/
// symbolic_shapes.h). Not fused (near misses): a Softmax on another axis, a scale that is not
// a constant scalar, an intermediate with a second reader, a mask whose rank is unknown or
// above 4 or with a dim above 1 where the scores' is 1 (it would broadcast the scores to a
// larger shape), scores of rank other than 4.
// Nodes left without readers (the head splits, repeat_kv, shape subgraphs) are removed.
#include "passes/pattern_util.h"
#include "passes/symbolic_shapes.h"
#include "vtensor/graph/fused_ops.h"
#include "vtensor/passes/pass.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

bool PermIs(const Node* n, std::initializer_list<int64_t> want) {
  if (!IsOp(n, "Transpose")) return false;
  std::vector<int64_t> p = n->GetInts("perm");
  return p == std::vector<int64_t>(want);
}

// `r` is a Reshape of a rank-3 value x [d0, d1, n * d] into [d0, d1, n, d] (n, d known);
// returns x and sets *heads = n.
const std::string* SplitSource(const SymbolicShapes& ss, const Node* r, int64_t* heads) {
  if (!IsOp(r, "Reshape") || r->inputs.size() != 2) return nullptr;
  const std::string& x = r->inputs[0];
  auto xr = ss.Rank(x), rr = ss.Rank(r->outputs[0]);
  if (!xr || !rr || *xr != 3 || *rr != 4) return nullptr;
  const SymInt x0 = *ss.DimOf(x, 0), x1 = *ss.DimOf(x, 1), x2 = *ss.DimOf(x, 2);
  const SymInt r0 = *ss.DimOf(r->outputs[0], 0), r1 = *ss.DimOf(r->outputs[0], 1);
  const SymInt n = *ss.DimOf(r->outputs[0], 2), d = *ss.DimOf(r->outputs[0], 3);
  if (r0 != x0 || r1 != x1 || !n.known() || !d.known() || n.v < 1 || d.v < 1) return nullptr;
  if (x2.known() && x2.v != n.v * d.v) return nullptr;
  if (!x2.known()) return nullptr;
  *heads = n.v;
  return &x;
}

// K or V traced back through repeat_kv; *group = g (1 when there is none).
std::string ThroughRepeatKv(const GraphIndex& gi, const SymbolicShapes& ss, const std::string& v,
                            int64_t* group) {
  *group = 1;
  Node* r = gi.Producer(v, "Reshape");
  if (r == nullptr || r->inputs.size() != 2) return v;
  Node* e = gi.Producer(r->inputs[0], "Expand");
  if (e == nullptr || gi.Uses(r->inputs[0]) != 1) return v;
  Node* u = gi.Producer(e->inputs[0], "Unsqueeze");
  if (u == nullptr || gi.Uses(e->inputs[0]) != 1) return v;
  const std::string& x = u->inputs[0];
  auto xr = ss.Rank(x), ur = ss.Rank(u->outputs[0]), er = ss.Rank(e->outputs[0]),
       rr = ss.Rank(r->outputs[0]);
  if (!xr || *xr != 4 || !ur || *ur != 5 || !er || *er != 5 || !rr || *rr != 4) return v;
  auto xd = [&](int i) { return *ss.DimOf(x, i); };
  auto ud = [&](int i) { return *ss.DimOf(u->outputs[0], i); };
  auto ed = [&](int i) { return *ss.DimOf(e->outputs[0], i); };
  auto rd = [&](int i) { return *ss.DimOf(r->outputs[0], i); };
  // Unsqueeze at axis 2: [b, kv, 1, t, d].
  if (ud(0) != xd(0) || ud(1) != xd(1) || !ud(2).Is(1) || ud(3) != xd(2) || ud(4) != xd(3))
    return v;
  const SymInt g = ed(2);
  if (ed(0) != xd(0) || ed(1) != xd(1) || !g.known() || g.v < 1 || ed(3) != xd(2) || ed(4) != xd(3))
    return v;
  const SymInt kv = xd(1);
  if (!kv.known() || rd(0) != xd(0) || !rd(1).Is(kv.v * g.v) || rd(2) != xd(2) || rd(3) != xd(3))
    return v;
  *group = g.v;
  return x;
}

Attribute IntAttr(const char* name, int64_t v) {
  Attribute a;
  a.name = name, a.type = Attribute::Type::kInt, a.i = v;
  return a;
}

struct Match {
  std::vector<Node*> core;  // removed: every one has no reader outside the match
  std::string q, k, v, mask, out;
  int64_t heads = 0, kv_heads = 0;
  float scale = 1.0f;
  bool bsh_output = false;
  std::string name;
};

bool MatchAt(Graph& g, const GraphIndex& gi, const SymbolicShapes& ss, Node* sm, Match* m) {
  if (!IsOp(sm, "Softmax") || sm->inputs.size() != 1) return false;
  auto rank = ss.Rank(sm->inputs[0]);
  if (!rank || *rank != 4) return false;
  const int64_t axis = sm->GetInt("axis", sm->opset >= 13 ? -1 : 1);
  if (axis != -1 && axis != 3) return false;
  m->core = {sm};
  std::string s = sm->inputs[0];
  if (Node* c = gi.Producer(s, "Cast"); c != nullptr) {
    if (c->GetInt("to", 0) != 1 || gi.Uses(s) != 1) return false;  // only Cast to float
    m->core.push_back(c);
    s = c->inputs[0];
  }
  // Scale node and the optional mask Add above it.
  Node* scale = nullptr;
  std::string mm_out;
  auto as_scale = [&](Node* n) -> bool {
    if ((!IsOp(n, "Div") && !IsOp(n, "Mul")) || n->inputs.size() != 2) return false;
    for (int side = 0; side < 2; ++side) {
      if (n->op_type == "Div" && side == 0) continue;  // Div(mm, c) only
      auto c = ScalarF32(g, n->inputs[static_cast<size_t>(side)]);
      Node* mm = gi.Producer(n->inputs[static_cast<size_t>(1 - side)], "MatMul");
      if (!c || *c == 0 || mm == nullptr) continue;
      m->scale = n->op_type == "Div" ? 1.0f / *c : *c;
      mm_out = mm->outputs[0];
      return true;
    }
    return false;
  };
  Node* p = gi.Producer(s);
  if (p == nullptr || gi.Uses(s) != 1) return false;
  if (IsOp(p, "Add") && p->inputs.size() == 2) {
    for (int side = 0; side < 2 && scale == nullptr; ++side) {
      Node* n = gi.Producer(p->inputs[static_cast<size_t>(side)]);
      if (n != nullptr && gi.Uses(p->inputs[static_cast<size_t>(side)]) == 1 && as_scale(n)) {
        scale = n;
        m->mask = p->inputs[static_cast<size_t>(1 - side)];
      }
    }
    if (scale == nullptr) return false;
    m->core.push_back(p);
  } else if (as_scale(p)) {
    scale = p;
  } else {
    return false;
  }
  m->core.push_back(scale);
  Node* mm = gi.Producer(mm_out, "MatMul");
  if (mm == nullptr || gi.Uses(mm_out) != 1) return false;
  m->core.push_back(mm);
  auto mm_rank = ss.Rank(mm_out);
  if (!mm_rank || *mm_rank != 4) return false;
  // The mask must not widen the scores: known rank <= 4.
  // The Add must keep the scores' shape: no mask dim may widen a scores dim that is 1, and
  // known dims must agree. (Dims whose values are not known here the operator checks in every
  // run: a mask that does not broadcast to the scores is an error there.)
  if (!m->mask.empty()) {
    auto mr = ss.Rank(m->mask);
    if (!mr || *mr > 4) return false;
    for (size_t i = 0; i < *mr; ++i) {
      auto md = ss.DimOf(m->mask, static_cast<int64_t>(i));
      auto sd = ss.DimOf(mm_out, static_cast<int64_t>(i + 4 - *mr));
      if (!md || !sd || md->Is(1) || *md == *sd) continue;
      if (sd->Is(1) || (md->known() && sd->known())) return false;
    }
  }
  // Forward: P V.
  Node* pv = gi.SoleReader(sm->outputs[0]);
  if (!IsOp(pv, "MatMul") || pv->inputs[0] != sm->outputs[0]) return false;
  m->core.push_back(pv);
  m->out = pv->outputs[0];
  m->name = pv->name;
  if (Node* t = gi.SoleReader(pv->outputs[0]); PermIs(t, {0, 2, 1, 3})) {
    Node* r = gi.SoleReader(t->outputs[0]);
    auto c = [&](int i) { return ss.DimOf(pv->outputs[0], i); };
    auto rr = IsOp(r, "Reshape") ? ss.Rank(r->outputs[0]) : std::nullopt;
    if (rr && *rr == 3 && c(0) && c(1)->known() && c(3)->known()) {
      const SymInt o0 = *ss.DimOf(r->outputs[0], 0), o1 = *ss.DimOf(r->outputs[0], 1),
                   o2 = *ss.DimOf(r->outputs[0], 2);
      if (o0 == *c(0) && o1 == *c(2) && o2.Is(c(1)->v * c(3)->v)) {
        m->core.push_back(t);
        m->core.push_back(r);
        m->out = r->outputs[0];
        m->name = r->name;
        m->bsh_output = true;
      }
    }
  }
  // Operands.
  const std::string& q4 = mm->inputs[0];
  const std::string& kt = mm->inputs[1];
  const std::string& v4 = pv->inputs[1];
  auto qr = ss.Rank(q4), kr = ss.Rank(kt), vr = ss.Rank(v4);
  if (!qr || *qr != 4 || !kr || *kr != 4 || !vr || *vr != 4) return false;
  auto q_heads = ss.DimOf(q4, 1);
  if (!q_heads || !q_heads->known()) return false;
  m->heads = q_heads->v;
  m->q = q4;
  if (Node* t = gi.Producer(q4); PermIs(t, {0, 2, 1, 3}))
    if (Node* r = gi.Producer(t->inputs[0], "Reshape"); r != nullptr) {
      int64_t n = 0;
      if (const std::string* x = SplitSource(ss, r, &n); x != nullptr && n == m->heads) m->q = *x;
    }
  // K: K^T is a Transpose of K (0,1,3,2) or of the split k3 (0,2,3,1).
  Node* kt_node = gi.Producer(kt, "Transpose");
  if (kt_node == nullptr) return false;
  std::string k;
  int64_t k_group = 1, v_group = 1;
  if (PermIs(kt_node, {0, 1, 3, 2})) {
    k = ThroughRepeatKv(gi, ss, kt_node->inputs[0], &k_group);
  } else if (PermIs(kt_node, {0, 2, 3, 1})) {
    Node* r = gi.Producer(kt_node->inputs[0], "Reshape");
    int64_t n = 0;
    const std::string* x = r ? SplitSource(ss, r, &n) : nullptr;
    if (x == nullptr || n != m->heads) return false;
    k = *x;
  } else {
    return false;
  }
  std::string v = ThroughRepeatKv(gi, ss, v4, &v_group);
  if (v == v4)
    if (Node* t = gi.Producer(v4); PermIs(t, {0, 2, 1, 3}))
      if (Node* r = gi.Producer(t->inputs[0], "Reshape"); r != nullptr) {
        int64_t n = 0;
        if (const std::string* x = SplitSource(ss, r, &n); x != nullptr && n == m->heads) v = *x;
      }
  if (k_group != v_group || m->heads % k_group != 0) return false;
  m->kv_heads = m->heads / k_group;
  m->k = k;
  m->v = v;
  return true;
}

}  // namespace

size_t FuseAttention(Graph& g) {
  SymbolicShapes ss(g);
  GraphIndex gi(g);
  std::unordered_set<const Node*> removed;
  std::vector<Node> added;
  for (auto& node : g.nodes) {
    Match m;
    if (!MatchAt(g, gi, ss, &node, &m)) continue;
    bool clash = false;
    for (Node* n : m.core) clash = clash || removed.count(n);
    if (clash) continue;
    for (Node* n : m.core) removed.insert(n);
    Node a;
    a.op_type = "Attention";
    a.domain = kVtDomain;
    a.opset = 1;
    a.name = m.name.empty() ? m.out : m.name;
    a.inputs = {m.q, m.k, m.v};
    if (!m.mask.empty()) a.inputs.push_back(m.mask);
    a.outputs = {m.out};
    a.attrs["num_heads"] = IntAttr("num_heads", m.heads);
    a.attrs["kv_num_heads"] = IntAttr("kv_num_heads", m.kv_heads);
    a.attrs[kBshOutputAttr] = IntAttr(kBshOutputAttr, m.bsh_output ? 1 : 0);
    Attribute sc;
    sc.name = "scale", sc.type = Attribute::Type::kFloat, sc.f = m.scale;
    a.attrs["scale"] = sc;
    added.push_back(std::move(a));
  }
  EraseNodes(g, removed);
  for (auto& n : added) g.nodes.push_back(std::move(n));
  if (!added.empty()) RemoveDeadNodes(g);
  return added.size();
}

namespace {
class FuseAttentionPass final : public Pass {
 public:
  const char* name() const override { return "fuse-attention"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FuseAttention(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }

 private:
  size_t rewrites_ = 0;
};
}  // namespace

std::unique_ptr<Pass> MakeFuseAttentionPass() { return std::make_unique<FuseAttentionPass>(); }

}  // namespace vt
