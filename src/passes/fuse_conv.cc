// FuseConv (passes/fusion.h): a Conv or ConvTranspose with a constant f32 filter absorbs the
// single-consumer chain after it — affine maps folded into new weights, one activation, affine maps after the
// activation — and x + x * h over a fused Conv's h becomes x * (h + 1). The matching of each
// step is in its own function below, in the order the steps run.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/fusion_util.h"
#include "vtensor/passes/fusion.h"

namespace vt {
namespace {

using fusion::F32Const;

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

std::vector<float> ToFloats(const std::vector<double>& v) {
  return std::vector<float>(v.begin(), v.end());
}

// What one Conv absorbs, built up step by step.
struct ConvChain {
  Node* conv = nullptr;
  // The f32 constant filter: [M, C/group, k...] for Conv, [C, M/group, k...] for
  // ConvTranspose.
  const Tensor* w = nullptr;
  bool transposed = false;    // a ConvTranspose
  int64_t group = 1;
  const Tensor* b = nullptr;  // the f32 constant bias [M], or null
  bool has_b = false;
  int64_t m = 0;              // output channels
  int rank = 0;               // of W and of the output
  std::string cur;            // output of the last absorbed node
  std::vector<Node*> absorbed;
  // Step 1: y = conv(x; W) * s + t (t starts as the bias).
  std::vector<double> s, t;
  bool folded = false;
  std::string folded_out;  // the value the folded Conv computes
  // Step 2.
  std::string act;
  std::vector<float> params;
  // Step 3: y = act(...) * ps + pt.
  std::vector<double> ps, pt;
};

// The output channels of a constant filter `w` (rank >= 3): W[0] for Conv,
// W[1] * group for ConvTranspose; 0 when the filter does not divide into `group` groups.
int64_t OutputChannels(const Tensor& w, bool transposed, int64_t group) {
  if (!transposed) return w.dim(0);
  if (group <= 0 || w.dim(0) % group != 0) return 0;
  return w.dim(1) * group;
}

// The chain of a Conv or ConvTranspose that can absorb anything: an f32 constant W of
// rank >= 3 and a constant [M] bias or none, not fused before. False otherwise.
bool StartChain(const Graph& g, Node& conv, ConvChain* c) {
  c->transposed = conv.op_type == "ConvTranspose";
  if ((conv.op_type != "Conv" && !c->transposed) || !conv.domain.empty() ||
      conv.outputs.size() != 1 || conv.inputs.size() < 2 || conv.FindAttr(kConvActAttr) ||
      conv.FindAttr(kConvDwStridesAttr))  // a fused depthwise + pointwise pair
    return false;
  c->w = F32Const(g, conv.inputs[1]);
  if (c->w == nullptr || c->w->rank() < 3) return false;
  c->group = conv.GetInt("group", 1);
  c->m = OutputChannels(*c->w, c->transposed, c->group);
  if (c->m <= 0) return false;
  c->rank = c->w->rank();
  c->has_b = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  c->b = c->has_b ? F32Const(g, conv.inputs[2]) : nullptr;
  if (c->has_b && (c->b == nullptr || c->b->rank() != 1 || c->b->dim(0) != c->m)) return false;
  c->conv = &conv;
  c->cur = conv.outputs[0];
  c->s.assign(static_cast<size_t>(c->m), 1.0);
  c->t.assign(static_cast<size_t>(c->m), 0.0);
  if (c->b != nullptr)
    for (int64_t i = 0; i < c->m; ++i) c->t[static_cast<size_t>(i)] = c->b->GetDouble(i);
  return true;
}

// Applies Mul / Add by the per-channel `v` to y = ... * s + t.
void ComposeAffine(const Node& op, const std::vector<double>& v, std::vector<double>* s,
                   std::vector<double>* t) {
  for (size_t i = 0; i < s->size(); ++i) {
    if (op.op_type == "Mul") {
      (*s)[i] *= v[i];
      (*t)[i] *= v[i];
    } else {
      (*t)[i] += v[i];
    }
  }
}

// Step 1: BatchNormalization and per-channel Mul / Add read only by the chain.
void AbsorbAffineMaps(Graph& g, const fusion::ValueUses& vu,
                      const std::unordered_set<const Node*>& removed, ConvChain* c) {
  for (Node* next; (next = vu.SoleConsumer(g, c->cur)) != nullptr && !removed.count(next);) {
    std::vector<double> a, b;
    if (next->op_type == "BatchNormalization" && next->domain.empty() &&
        next->inputs[0] == c->cur && BatchNormAffine(g, *next, c->m, &a, &b)) {
      for (size_t i = 0; i < c->s.size(); ++i) {
        c->s[i] *= a[i];
        c->t[i] = c->t[i] * a[i] + b[i];
      }
    } else if (auto v = ChannelOperand(g, *next, c->cur, c->m, c->rank); !v.empty()) {
      ComposeAffine(*next, v, &c->s, &c->t);
    } else {
      break;
    }
    c->absorbed.push_back(next);
    c->cur = next->outputs[0];
    c->folded = true;
  }
  c->folded_out = c->cur;
}

// Step 2: one activation read only by the chain.
void AbsorbActivation(Graph& g, const fusion::ValueUses& vu,
                      const std::unordered_set<const Node*>& removed, ConvChain* c) {
  Node* an = vu.SoleConsumer(g, c->cur);
  if (an != nullptr && !removed.count(an) && an->inputs[0] == c->cur &&
      ActivationOf(g, *an, &c->act, &c->params)) {
    c->absorbed.push_back(an);
    c->cur = an->outputs[0];
  } else {
    c->act.clear();
  }
}

// Step 3: per-channel Mul / Add after the activation.
void AbsorbScaleShift(Graph& g, const fusion::ValueUses& vu,
                      const std::unordered_set<const Node*>& removed, ConvChain* c) {
  if (c->act.empty()) return;
  c->ps.assign(static_cast<size_t>(c->m), 1.0);
  c->pt.assign(static_cast<size_t>(c->m), 0.0);
  for (Node* next; (next = vu.SoleConsumer(g, c->cur)) != nullptr && !removed.count(next);) {
    auto v = ChannelOperand(g, *next, c->cur, c->m, c->rank);
    if (v.empty()) break;
    ComposeAffine(*next, v, &c->ps, &c->pt);
    c->absorbed.push_back(next);
    c->cur = next->outputs[0];
  }
}

// The output channel of each block of kernel taps of W, in storage order: W [M, C/g, k...]
// has C/g blocks per output channel m; ConvTranspose's W [C, M/g, k...] has block (c, j) in
// output channel (c / (C/g)) * (M/g) + j.
std::vector<int64_t> OutputChannelOfBlocks(const ConvChain& c) {
  const int64_t d0 = c.w->dim(0), d1 = c.w->dim(1);
  std::vector<int64_t> m(static_cast<size_t>(d0 * d1));
  for (int64_t i = 0; i < d0; ++i)
    for (int64_t j = 0; j < d1; ++j)
      m[static_cast<size_t>(i * d1 + j)] = c.transposed ? (i / (d0 / c.group)) * d1 + j : i;
  return m;
}

// W' = W * s[m] and B' = t as new initializers the Conv reads; the old W and B are added to
// `maybe_unused`.
void FoldIntoWeights(Graph& g, const ConvChain& c, std::vector<std::string>* maybe_unused) {
  const Tensor wc = c.w->Contiguous();
  Tensor nw = Tensor::Empty(DType::kFloat32, c.w->shape());
  const std::vector<int64_t> block_m = OutputChannelOfBlocks(c);
  const int64_t taps = c.w->numel() / std::max<int64_t>(static_cast<int64_t>(block_m.size()), 1);
  const float* src = wc.data<float>();
  float* dst = nw.mutable_data<float>();
  for (size_t blk = 0; blk < block_m.size(); ++blk) {
    const double s = c.s[static_cast<size_t>(block_m[blk])];
    for (int64_t k = 0; k < taps; ++k) {
      const size_t i = blk * static_cast<size_t>(taps) + static_cast<size_t>(k);
      dst[i] = static_cast<float>(src[i] * s);
    }
  }
  Tensor nb = Tensor::FromF32(ToFloats(c.t), {c.m});
  Node& conv = *c.conv;
  maybe_unused->push_back(conv.inputs[1]);
  if (c.has_b) maybe_unused->push_back(conv.inputs[2]);
  const std::string wn = fusion::FreshName(g, c.folded_out + ".vt_folded_w");
  g.SetInitializer(wn, std::move(nw));
  const std::string bn = fusion::FreshName(g, c.folded_out + ".vt_folded_b");
  g.SetInitializer(bn, std::move(nb));
  conv.inputs.resize(3);
  conv.inputs[1] = wn;
  conv.inputs[2] = bn;
}

Attribute FloatsAttribute(const char* name, std::vector<float> v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kFloats;
  a.floats = std::move(v);
  return a;
}

// One value when all of `v` are equal, else all of them.
std::vector<float> CompactFloats(const std::vector<double>& v) {
  const bool all_equal = std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; });
  return all_equal ? std::vector<float>{static_cast<float>(v[0])} : ToFloats(v);
}

// Steps 2-3 as the Conv's vt.act* attributes (graph/fused_attributes.h).
void RecordActivation(const ConvChain& c) {
  Node& conv = *c.conv;
  Attribute a;
  a.name = kConvActAttr;
  a.type = Attribute::Type::kString;
  a.s = c.act;
  conv.attrs[a.name] = a;
  if (!c.params.empty()) conv.attrs[kConvActParamsAttr] = FloatsAttribute(kConvActParamsAttr, c.params);
  const bool has_scale = !std::all_of(c.ps.begin(), c.ps.end(), [](double x) { return x == 1.0; });
  const bool has_shift = !std::all_of(c.pt.begin(), c.pt.end(), [](double x) { return x == 0.0; });
  if (!has_scale && !has_shift) return;
  conv.attrs[kConvActScaleAttr] = FloatsAttribute(kConvActScaleAttr, CompactFloats(c.ps));
  conv.attrs[kConvActShiftAttr] = FloatsAttribute(kConvActShiftAttr, CompactFloats(c.pt));
}

// Steps 1-3 for every Conv of `g` (not its subgraphs); absorbed nodes go to `removed`.
size_t AbsorbChains(Graph& g, std::unordered_set<const Node*>* removed,
                    std::vector<std::string>* maybe_unused) {
  const fusion::ValueUses vu(g);
  size_t fused = 0;
  for (Node& conv : g.nodes) {
    ConvChain c;
    if (removed->count(&conv) || !StartChain(g, conv, &c)) continue;
    AbsorbAffineMaps(g, vu, *removed, &c);
    AbsorbActivation(g, vu, *removed, &c);
    AbsorbScaleShift(g, vu, *removed, &c);
    if (c.absorbed.empty()) continue;
    if (c.folded) FoldIntoWeights(g, c, maybe_unused);
    if (!c.act.empty()) RecordActivation(c);
    conv.outputs[0] = c.cur;
    for (Node* n : c.absorbed) removed->insert(n);
    ++fused;
  }
  return fused;
}

// Step 4: Add(x, Mul(x, h)) with h from a fused Conv (with an activation), each intermediate
// read once, becomes Mul(x, h') with the Conv's shift raised by 1.
size_t FuseResidualGates(Graph& g, std::unordered_set<const Node*>* removed) {
  const fusion::ValueUses vu(g);
  const std::unordered_map<std::string, Node*> producers = fusion::Producers(g, *removed);
  size_t fused = 0;
  for (auto& add : g.nodes) {
    if (add.op_type != "Add" || !add.domain.empty() || add.inputs.size() != 2 ||
        add.outputs.size() != 1 || removed->count(&add))
      continue;
    for (size_t side = 0; side < 2; ++side) {
      const std::string& x = add.inputs[1 - side];
      const std::string& prod = add.inputs[side];
      Node* mul = fusion::ProducedBy(producers, prod, "Mul");
      if (mul == nullptr || vu.Uses(prod) != 1 || mul->inputs.size() != 2 ||
          mul->outputs.size() != 1 || removed->count(mul))
        continue;
      const bool x_first = mul->inputs[0] == x;
      if (!x_first && mul->inputs[1] != x) continue;
      const std::string& h = mul->inputs[x_first ? 1 : 0];
      Node* conv = fusion::ProducedBy(producers, h, "Conv");
      if (h == x || conv == nullptr || vu.Uses(h) != 1 || !conv->FindAttr(kConvActAttr))
        continue;
      Attribute& sc = conv->attrs[kConvActScaleAttr];
      Attribute& sh = conv->attrs[kConvActShiftAttr];
      sc = FloatsAttribute(kConvActScaleAttr, sc.floats.empty() ? std::vector<float>{1.0f} : sc.floats);
      sh = FloatsAttribute(kConvActShiftAttr, sh.floats.empty() ? std::vector<float>{0.0f} : sh.floats);
      for (float& v : sh.floats) v += 1.0f;
      mul->outputs[0] = add.outputs[0];
      removed->insert(&add);
      ++fused;
      break;
    }
  }
  return fused;
}

// Drops the initializers of `names` that no node, subgraph, graph input or output reads.
void DropUnreadInitializers(Graph& g, const std::vector<std::string>& names) {
  std::unordered_set<std::string> read;
  for (const auto& n : g.nodes) {
    for (const auto& in : n.inputs) read.insert(in);
    for (const auto& r : fusion::SubgraphReads(n)) read.insert(r);
  }
  for (const auto& o : g.outputs) read.insert(o.name);
  for (const auto& in : g.inputs) read.insert(in.name);
  for (const auto& name : names)
    if (!read.count(name)) g.initializers.erase(name);
}

}  // namespace

size_t FuseConv(Graph& g) {
  size_t fused = fusion::FuseSubgraphs(g, FuseConv);
  std::unordered_set<const Node*> removed;
  std::vector<std::string> maybe_unused;  // initializers a fold stopped reading
  fused += AbsorbChains(g, &removed, &maybe_unused);
  fused += FuseResidualGates(g, &removed);
  if (removed.empty()) return fused;
  fusion::EraseNodes(g, removed);
  DropUnreadInitializers(g, maybe_unused);
  return fused;
}

}  // namespace vt
