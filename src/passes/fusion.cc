#include "vtensor/passes/fusion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace vt {

namespace {

bool IsScalarConst(const Graph& g, const std::string& name, double want, double tol = 0.0) {
  auto it = g.initializers.find(name);
  if (it == g.initializers.end()) return false;
  const Tensor& t = it->second;
  if (t.dtype() != DType::kFloat32 || t.numel() != 1) return false;
  return std::fabs(t.GetDouble(0) - want) <= tol;
}

}  // namespace

size_t FuseHardSwish(Graph& g) {
  size_t fused = 0;
  for (auto& node : g.nodes)
    for (auto& [name, a] : node.attrs) {
      if (a.g) fused += FuseHardSwish(*a.g);
      for (auto& sg : a.graphs) fused += FuseHardSwish(*sg);
    }

  std::unordered_map<std::string, size_t> producer;
  std::unordered_map<std::string, int> uses;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& o : g.nodes[i].outputs)
      if (!o.empty()) producer[o] = i;
    for (const auto& in : g.nodes[i].inputs)
      if (!in.empty()) ++uses[in];
    for (const auto& [an, a] : g.nodes[i].attrs) {
      std::vector<std::shared_ptr<Graph>> subs = a.graphs;
      if (a.g) subs.push_back(a.g);
      for (const auto& sg : subs)
        for (const auto& r : OuterReferences(*sg)) ++uses[r];
    }
  }
  for (const auto& o : g.outputs) uses[o.name] += 1000;  // never fuse away a graph output

  auto single_use = [&](const std::string& v) { return uses[v] == 1; };
  auto produced_by = [&](const std::string& v, const char* op) -> Node* {
    auto it = producer.find(v);
    if (it == producer.end()) return nullptr;
    Node& n = g.nodes[it->second];
    return n.op_type == op && n.domain.empty() ? &n : nullptr;
  };

  std::unordered_set<const Node*> removed;
  for (auto& d : g.nodes) {
    if (!d.domain.empty() || d.inputs.size() != 2 || removed.count(&d)) continue;
    std::string m;
    if (d.op_type == "Div" && IsScalarConst(g, d.inputs[1], 6.0)) {
      m = d.inputs[0];
    } else if (d.op_type == "Mul") {
      if (IsScalarConst(g, d.inputs[1], 1.0 / 6.0, 1e-7)) m = d.inputs[0];
      else if (IsScalarConst(g, d.inputs[0], 1.0 / 6.0, 1e-7)) m = d.inputs[1];
    }
    if (m.empty() || !single_use(m)) continue;
    Node* mul = produced_by(m, "Mul");
    if (mul == nullptr || mul->inputs.size() != 2 || removed.count(mul)) continue;
    for (int side = 0; side < 2; ++side) {
      const std::string& clip_out = mul->inputs[static_cast<size_t>(side)];
      const std::string& x = mul->inputs[static_cast<size_t>(1 - side)];
      Node* clip = produced_by(clip_out, "Clip");
      if (clip == nullptr || !single_use(clip_out) || removed.count(clip)) continue;
      bool bounds = false;
      if (clip->opset >= 11) {
        bounds = clip->inputs.size() == 3 && IsScalarConst(g, clip->inputs[1], 0.0) &&
                 IsScalarConst(g, clip->inputs[2], 6.0);
      } else {
        bounds = clip->GetFloat("min", -1) == 0.0f && clip->GetFloat("max", -1) == 6.0f;
      }
      if (!bounds) continue;
      const std::string& add_out = clip->inputs[0];
      Node* add = produced_by(add_out, "Add");
      if (add == nullptr || !single_use(add_out) || add->inputs.size() != 2 || removed.count(add))
        continue;
      bool add_ok = (add->inputs[0] == x && IsScalarConst(g, add->inputs[1], 3.0)) ||
                    (add->inputs[1] == x && IsScalarConst(g, add->inputs[0], 3.0));
      if (!add_ok) continue;
      removed.insert(add);
      removed.insert(clip);
      removed.insert(mul);
      d.op_type = "HardSwish";
      d.opset = std::max<int64_t>(d.opset, 14);  // HardSwish exists from opset 14
      d.inputs = {x};
      d.attrs.clear();
      ++fused;
      break;
    }
  }
  if (!removed.empty()) {
    std::vector<Node> kept;
    kept.reserve(g.nodes.size() - removed.size());
    for (auto& n : g.nodes)
      if (!removed.count(&n)) kept.push_back(std::move(n));
    g.nodes = std::move(kept);
  }
  return fused;
}

namespace {

// Who produces and how many read each value of one graph (subgraph reads and graph outputs
// count as uses, so nothing they see is fused away).
struct ValueUses {
  std::unordered_map<std::string, int> uses;
  std::unordered_map<std::string, size_t> consumer;  // the last reader (meaningful when uses == 1)

  explicit ValueUses(const Graph& g) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const auto& in : g.nodes[i].inputs)
        if (!in.empty()) {
          ++uses[in];
          consumer[in] = i;
        }
      for (const auto& [an, a] : g.nodes[i].attrs) {
        std::vector<std::shared_ptr<Graph>> subs = a.graphs;
        if (a.g) subs.push_back(a.g);
        for (const auto& sg : subs)
          for (const auto& r : OuterReferences(*sg)) uses[r] += 1000;
      }
    }
    for (const auto& o : g.outputs) uses[o.name] += 1000;
  }
  // The only node reading `v`, or null.
  Node* SoleConsumer(Graph& g, const std::string& v) {
    auto it = uses.find(v);
    if (it == uses.end() || it->second != 1) return nullptr;
    return &g.nodes[consumer.at(v)];
  }
};

const Tensor* F32Const(const Graph& g, const std::string& name) {
  if (name.empty()) return nullptr;
  const Tensor* t = g.FindInitializer(name);
  return t != nullptr && t->dtype() == DType::kFloat32 ? t : nullptr;
}

// The values of constant `c` per output channel when `c` broadcasts against a Conv output
// [N, M, spatial...] of rank `rank` without changing its shape: a single value, or M values
// on the channel axis with every other dimension 1. Empty otherwise.
std::vector<double> PerChannel(const Tensor& c, int64_t m, int rank) {
  const int64_t n = c.numel();
  if (n == 1 && c.rank() <= rank) return std::vector<double>(static_cast<size_t>(m), c.GetDouble(0));
  if (n != m || c.rank() > rank) return {};
  const int channel_axis = c.rank() - rank + 1;  // c's axis aligned with output axis 1
  if (channel_axis < 0 || c.dim(channel_axis) != m) return {};
  std::vector<double> v(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) v[static_cast<size_t>(i)] = c.GetDouble(i);
  return v;
}

// `node` is a Mul or Add with `x` as one operand and a per-channel constant as the other.
std::vector<double> ChannelOperand(const Graph& g, const Node& node, const std::string& x,
                                   int64_t m, int rank) {
  if (!node.domain.empty() || node.inputs.size() != 2 || node.outputs.size() != 1) return {};
  if (node.op_type != "Mul" && node.op_type != "Add") return {};
  const std::string& other = node.inputs[0] == x ? node.inputs[1] : node.inputs[0];
  if (node.inputs[0] != x && node.inputs[1] != x) return {};
  if (other == x) return {};
  const Tensor* c = F32Const(g, other);
  return c != nullptr ? PerChannel(*c, m, rank) : std::vector<double>{};
}

// Inference BatchNormalization as y = x * a[m] + b[m]; false when it is not foldable.
bool BatchNormAffine(const Graph& g, const Node& bn, int64_t m, std::vector<double>* a,
                     std::vector<double>* b) {
  if (!bn.domain.empty() || bn.inputs.size() != 5) return false;
  for (size_t o = 1; o < bn.outputs.size(); ++o)
    if (!bn.outputs[o].empty()) return false;  // running statistics requested: training
  if (bn.opset >= 14 && bn.GetInt("training_mode", 0) != 0) return false;
  if (bn.opset < 7 && bn.FindAttr("is_test") != nullptr && bn.GetInt("is_test", 0) == 0)
    return false;
  if (bn.opset < 9 && bn.GetInt("spatial", 1) == 0) return false;
  const Tensor* p[4];
  for (int i = 0; i < 4; ++i) {
    p[i] = F32Const(g, bn.inputs[static_cast<size_t>(i) + 1]);
    if (p[i] == nullptr || p[i]->rank() != 1 || p[i]->dim(0) != m) return false;
  }
  const double eps = bn.GetFloat("epsilon", 1e-5f);
  a->resize(static_cast<size_t>(m));
  b->resize(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    const double ai = p[0]->GetDouble(i) / std::sqrt(p[3]->GetDouble(i) + eps);
    (*a)[static_cast<size_t>(i)] = ai;
    (*b)[static_cast<size_t>(i)] = p[1]->GetDouble(i) - p[2]->GetDouble(i) * ai;
  }
  return true;
}

// Scalar float constant input `i` of `node`, `def` when the input is absent.
std::optional<float> ScalarInput(const Graph& g, const Node& node, size_t i, float def) {
  if (node.inputs.size() <= i || node.inputs[i].empty()) return def;
  const Tensor* t = F32Const(g, node.inputs[i]);
  if (t == nullptr || t->numel() != 1) return std::nullopt;
  return static_cast<float>(t->GetDouble(0));
}

// The activation `node` applies to its first input, as (name, parameters); false otherwise.
bool ActivationOf(const Graph& g, const Node& node, std::string* act, std::vector<float>* params) {
  if (!node.domain.empty() || node.outputs.size() != 1 || node.inputs.empty()) return false;
  const std::string& op = node.op_type;
  params->clear();
  if (op == "Relu" || op == "HardSwish" || op == "Sigmoid") {
    if (node.inputs.size() != 1) return false;
  } else if (op == "LeakyRelu") {
    params->push_back(node.GetFloat("alpha", 0.01f));
  } else if (op == "HardSigmoid") {
    params->push_back(node.GetFloat("alpha", 0.2f));
    params->push_back(node.GetFloat("beta", 0.5f));
  } else if (op == "Clip") {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    if (node.opset >= 11) {
      auto lo = ScalarInput(g, node, 1, -kInf), hi = ScalarInput(g, node, 2, kInf);
      if (!lo || !hi) return false;
      params->assign({*lo, *hi});
    } else {
      params->assign({node.GetFloat("min", -std::numeric_limits<float>::max()),
                      node.GetFloat("max", std::numeric_limits<float>::max())});
    }
    if (std::isnan((*params)[0]) || std::isnan((*params)[1])) return false;
  } else {
    return false;
  }
  *act = op;
  return true;
}

std::string FreshName(const Graph& g, const std::string& base) {
  std::string n = base;
  for (int i = 1; g.initializers.count(n) || g.values.count(n); ++i)
    n = base + "." + std::to_string(i);
  return n;
}

std::vector<float> ToFloats(const std::vector<double>& v) {
  return std::vector<float>(v.begin(), v.end());
}

}  // namespace

size_t FuseConv(Graph& g) {
  size_t fused = 0;
  for (auto& node : g.nodes)
    for (auto& [name, a] : node.attrs) {
      if (a.g) fused += FuseConv(*a.g);
      for (auto& sg : a.graphs) fused += FuseConv(*sg);
    }

  ValueUses vu(g);
  std::unordered_set<const Node*> removed;
  std::vector<std::string> maybe_unused;  // initializers a fold stopped reading
  for (size_t ci = 0; ci < g.nodes.size(); ++ci) {
    Node& conv = g.nodes[ci];
    if (conv.op_type != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1 ||
        conv.inputs.size() < 2 || removed.count(&conv) || conv.FindAttr(kConvActAttr))
      continue;
    const Tensor* w = F32Const(g, conv.inputs[1]);
    if (w == nullptr || w->rank() < 3 || w->dim(0) <= 0) continue;
    const int64_t m = w->dim(0);
    const int rank = w->rank();
    const bool has_b = conv.inputs.size() > 2 && !conv.inputs[2].empty();
    const Tensor* b = has_b ? F32Const(g, conv.inputs[2]) : nullptr;
    if (has_b && (b == nullptr || b->rank() != 1 || b->dim(0) != m)) continue;

    std::string cur = conv.outputs[0];
    std::vector<Node*> absorbed;
    // 1. Affine maps folded into W and B: y = conv(x; W) * s + t.
    std::vector<double> s(static_cast<size_t>(m), 1.0), t(static_cast<size_t>(m), 0.0);
    if (b != nullptr)
      for (int64_t i = 0; i < m; ++i) t[static_cast<size_t>(i)] = b->GetDouble(i);
    bool folded = false;
    for (Node* next; (next = vu.SoleConsumer(g, cur)) != nullptr && !removed.count(next);) {
      std::vector<double> a, c;
      if (next->op_type == "BatchNormalization" && next->domain.empty() &&
          next->inputs[0] == cur && BatchNormAffine(g, *next, m, &a, &c)) {
        for (size_t i = 0; i < s.size(); ++i) {
          s[i] *= a[i];
          t[i] = t[i] * a[i] + c[i];
        }
      } else if (auto v = ChannelOperand(g, *next, cur, m, rank); !v.empty()) {
        for (size_t i = 0; i < s.size(); ++i) {
          if (next->op_type == "Mul") {
            s[i] *= v[i];
            t[i] *= v[i];
          } else {
            t[i] += v[i];
          }
        }
      } else {
        break;
      }
      absorbed.push_back(next);
      cur = next->outputs[0];
      folded = true;
    }
    const std::string folded_out = cur;
    // 2. One activation.
    std::string act;
    std::vector<float> params;
    Node* an = vu.SoleConsumer(g, cur);
    if (an != nullptr && !removed.count(an) && an->inputs[0] == cur &&
        ActivationOf(g, *an, &act, &params)) {
      absorbed.push_back(an);
      cur = an->outputs[0];
    } else {
      act.clear();
    }
    // 3. Affine maps after the activation.
    std::vector<double> ps, pt;
    if (!act.empty()) {
      ps.assign(static_cast<size_t>(m), 1.0);
      pt.assign(static_cast<size_t>(m), 0.0);
      for (Node* next; (next = vu.SoleConsumer(g, cur)) != nullptr && !removed.count(next);) {
        auto v = ChannelOperand(g, *next, cur, m, rank);
        if (v.empty()) break;
        for (size_t i = 0; i < ps.size(); ++i) {
          if (next->op_type == "Mul") {
            ps[i] *= v[i];
            pt[i] *= v[i];
          } else {
            pt[i] += v[i];
          }
        }
        absorbed.push_back(next);
        cur = next->outputs[0];
      }
    }
    if (absorbed.empty()) continue;

    if (folded) {
      const Tensor wc = w->Contiguous();
      Tensor nw = Tensor::Empty(DType::kFloat32, w->shape());
      const int64_t per = w->numel() / m;
      const float* src = wc.data<float>();
      float* dst = nw.mutable_data<float>();
      for (int64_t i = 0; i < m; ++i)
        for (int64_t k = 0; k < per; ++k)
          dst[i * per + k] = static_cast<float>(src[i * per + k] * s[static_cast<size_t>(i)]);
      Tensor nb = Tensor::FromF32(ToFloats(t), {m});
      maybe_unused.push_back(conv.inputs[1]);
      if (has_b) maybe_unused.push_back(conv.inputs[2]);
      const std::string wn = FreshName(g, folded_out + ".vt_folded_w");
      g.SetInitializer(wn, std::move(nw));
      const std::string bn = FreshName(g, folded_out + ".vt_folded_b");
      g.SetInitializer(bn, std::move(nb));
      conv.inputs.resize(3);
      conv.inputs[1] = wn;
      conv.inputs[2] = bn;
    }
    if (!act.empty()) {
      Attribute a;
      a.name = kConvActAttr;
      a.type = Attribute::Type::kString;
      a.s = act;
      conv.attrs[a.name] = a;
      if (!params.empty()) {
        Attribute p;
        p.name = kConvActParamsAttr;
        p.type = Attribute::Type::kFloats;
        p.floats = params;
        conv.attrs[p.name] = p;
      }
      auto all_equal = [](const std::vector<double>& v) {
        for (double x : v)
          if (x != v[0]) return false;
        return true;
      };
      const bool has_scale = !std::all_of(ps.begin(), ps.end(), [](double x) { return x == 1.0; });
      const bool has_shift = !std::all_of(pt.begin(), pt.end(), [](double x) { return x == 0.0; });
      if (has_scale || has_shift) {
        Attribute sc;
        sc.name = kConvActScaleAttr;
        sc.type = Attribute::Type::kFloats;
        sc.floats = all_equal(ps) ? std::vector<float>{static_cast<float>(ps[0])} : ToFloats(ps);
        conv.attrs[sc.name] = sc;
        Attribute sh;
        sh.name = kConvActShiftAttr;
        sh.type = Attribute::Type::kFloats;
        sh.floats = all_equal(pt) ? std::vector<float>{static_cast<float>(pt[0])} : ToFloats(pt);
        conv.attrs[sh.name] = sh;
      }
    }
    conv.outputs[0] = cur;
    for (Node* n : absorbed) removed.insert(n);
    ++fused;
  }
  // 4. x + x * h with h from a fused Conv: x * (h + 1), the + 1 added to that Conv's shift.
  {
    ValueUses vu2(g);
    std::unordered_map<std::string, Node*> producer;
    for (auto& n : g.nodes)
      if (!removed.count(&n))
        for (const auto& o : n.outputs) producer[o] = &n;
    auto produced = [&](const std::string& v, const char* op) -> Node* {
      auto it = producer.find(v);
      return it != producer.end() && it->second->op_type == op && it->second->domain.empty()
                 ? it->second
                 : nullptr;
    };
    for (auto& add : g.nodes) {
      if (add.op_type != "Add" || !add.domain.empty() || add.inputs.size() != 2 ||
          add.outputs.size() != 1 || removed.count(&add))
        continue;
      for (int side = 0; side < 2; ++side) {
        const std::string& x = add.inputs[static_cast<size_t>(1 - side)];
        const std::string& prod = add.inputs[static_cast<size_t>(side)];
        Node* mul = produced(prod, "Mul");
        if (mul == nullptr || vu2.uses[prod] != 1 || mul->inputs.size() != 2 ||
            mul->outputs.size() != 1 || removed.count(mul))
          continue;
        const bool x_first = mul->inputs[0] == x;
        if (!x_first && mul->inputs[1] != x) continue;
        const std::string& h = mul->inputs[x_first ? 1 : 0];
        Node* conv = produced(h, "Conv");
        if (h == x || conv == nullptr || vu2.uses[h] != 1 || !conv->FindAttr(kConvActAttr))
          continue;
        Attribute& sc = conv->attrs[kConvActScaleAttr];
        Attribute& sh = conv->attrs[kConvActShiftAttr];
        sc.name = kConvActScaleAttr;
        sc.type = Attribute::Type::kFloats;
        if (sc.floats.empty()) sc.floats = {1.0f};
        sh.name = kConvActShiftAttr;
        sh.type = Attribute::Type::kFloats;
        if (sh.floats.empty()) sh.floats = {0.0f};
        for (float& v : sh.floats) v += 1.0f;
        mul->outputs[0] = add.outputs[0];
        removed.insert(&add);
        ++fused;
        break;
      }
    }
  }
  if (removed.empty()) return fused;
  std::vector<Node> kept;
  kept.reserve(g.nodes.size() - removed.size());
  for (auto& n : g.nodes)
    if (!removed.count(&n)) kept.push_back(std::move(n));
  g.nodes = std::move(kept);
  // Weights and biases no node reads any more (and no graph input names) are dropped.
  std::unordered_set<std::string> read;
  for (const auto& n : g.nodes) {
    for (const auto& in : n.inputs) read.insert(in);
    for (const auto& [an, a] : n.attrs) {
      std::vector<std::shared_ptr<Graph>> subs = a.graphs;
      if (a.g) subs.push_back(a.g);
      for (const auto& sg : subs)
        for (const auto& r : OuterReferences(*sg)) read.insert(r);
    }
  }
  for (const auto& o : g.outputs) read.insert(o.name);
  for (const auto& in : g.inputs) read.insert(in.name);
  for (const auto& name : maybe_unused)
    if (!read.count(name)) g.initializers.erase(name);
  return fused;
}

}  // namespace vt
