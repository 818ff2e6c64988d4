// FuseDepthwisePointwise (passes/fusion.h): a depthwise Conv read only by a pointwise Conv
// becomes part of that pointwise Conv (graph/fused_attributes.h, kConvDw*).
#include <string>
#include <unordered_set>
#include <vector>

#include "passes/fusion_util.h"
#include "vtensor/passes/fusion.h"

namespace vt {
namespace {

using fusion::F32Const;

// The ints attribute `name` of `n`, `def` (repeated `rank` times) when absent; empty when its
// length is not `want`.
std::vector<int64_t> IntsOr(const Node& n, const char* name, int64_t def, size_t want) {
  std::vector<int64_t> v = n.GetInts(name);
  if (n.FindAttr(name) == nullptr) v.assign(want, def);
  return v.size() == want ? v : std::vector<int64_t>{};
}

bool NoAutoPad(const Node& n) { return n.GetString("auto_pad", "NOTSET") == "NOTSET"; }

// An f32 constant [M] bias input `i` of `n`, or no bias input at all.
bool ConstantBiasOrNone(const Graph& g, const Node& n, size_t i, int64_t m) {
  if (n.inputs.size() <= i || n.inputs[i].empty()) return true;
  const Tensor* b = F32Const(g, n.inputs[i]);
  return b != nullptr && b->rank() == 1 && b->dim(0) == m;
}

// A 2-D depthwise Conv this fusion can absorb: W [C, 1, kh, kw] an f32 constant, group C,
// explicit geometry (no auto_pad), not itself a fused pair. Its channel count, or 0.
int64_t DepthwiseChannels(const Graph& g, const Node& dw) {
  if (dw.op_type != "Conv" || !dw.domain.empty() || dw.outputs.size() != 1 ||
      dw.inputs.size() < 2 || dw.inputs.size() > 3 || !NoAutoPad(dw))
    return 0;
  const Tensor* w = F32Const(g, dw.inputs[1]);
  // One channel: the pointwise Conv after it would itself run in the depthwise mode, whose
  // sums the fused GEMM would not reproduce bit for bit.
  if (w == nullptr || w->rank() != 4 || w->dim(1) != 1 || w->dim(0) < 2) return 0;
  const int64_t c = w->dim(0);
  if (dw.GetInt("group", 1) != c || !ConstantBiasOrNone(g, dw, 2, c)) return 0;
  if (IntsOr(dw, "strides", 1, 2).empty() || IntsOr(dw, "dilations", 1, 2).empty() ||
      IntsOr(dw, "pads", 0, 4).empty())
    return 0;
  return c;
}

// A pointwise Conv over `c` channels reading `x`: W [M, c, 1, 1] an f32 constant, group 1,
// unit strides and dilations, no pads, a constant bias or none, not fused with a depthwise
// Conv already.
bool IsPointwiseOver(const Graph& g, const Node& pw, const std::string& x, int64_t c) {
  if (pw.op_type != "Conv" || !pw.domain.empty() || pw.outputs.size() != 1 ||
      pw.inputs.size() < 2 || pw.inputs.size() > 3 || pw.inputs[0] != x ||
      pw.FindAttr(kConvDwStridesAttr) != nullptr)
    return false;
  const Tensor* w = F32Const(g, pw.inputs[1]);
  if (w == nullptr || w->rank() != 4 || w->dim(1) != c || w->dim(2) != 1 || w->dim(3) != 1)
    return false;
  const std::string auto_pad = pw.GetString("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") return false;
  return pw.GetInt("group", 1) == 1 && IntsOr(pw, "strides", 1, 2) == std::vector<int64_t>{1, 1} &&
         IntsOr(pw, "dilations", 1, 2) == std::vector<int64_t>{1, 1} &&
         IntsOr(pw, "pads", 0, 4) == std::vector<int64_t>{0, 0, 0, 0} &&
         ConstantBiasOrNone(g, pw, 2, w->dim(0));
}

Attribute IntsAttribute(const char* name, std::vector<int64_t> v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kInts;
  a.ints = std::move(v);
  return a;
}

// `pw` takes over `dw`: its input, filter, bias, geometry and activation attributes.
void Absorb(const Node& dw, Node& pw) {
  pw.inputs.resize(3);
  pw.inputs[0] = dw.inputs[0];
  pw.inputs.push_back(dw.inputs[1]);
  pw.inputs.push_back(dw.inputs.size() > 2 ? dw.inputs[2] : "");
  pw.attrs[kConvDwStridesAttr] = IntsAttribute(kConvDwStridesAttr, IntsOr(dw, "strides", 1, 2));
  pw.attrs[kConvDwPadsAttr] = IntsAttribute(kConvDwPadsAttr, IntsOr(dw, "pads", 0, 4));
  pw.attrs[kConvDwDilationsAttr] =
      IntsAttribute(kConvDwDilationsAttr, IntsOr(dw, "dilations", 1, 2));
  const char* from[] = {kConvActAttr, kConvActParamsAttr, kConvActScaleAttr, kConvActShiftAttr};
  const char* to[] = {kConvDwActAttr, kConvDwActParamsAttr, kConvDwActScaleAttr,
                      kConvDwActShiftAttr};
  for (int i = 0; i < 4; ++i)
    if (const Attribute* a = dw.FindAttr(from[i]); a != nullptr) {
      Attribute copy = *a;
      copy.name = to[i];
      pw.attrs[to[i]] = copy;
    }
}

}  // namespace

size_t FuseDepthwisePointwise(Graph& g) {
  size_t fused = fusion::FuseSubgraphs(g, FuseDepthwisePointwise);
  const fusion::ValueUses vu(g);
  std::unordered_set<const Node*> removed;
  for (Node& dw : g.nodes) {
    const int64_t c = DepthwiseChannels(g, dw);
    if (c == 0 || removed.count(&dw)) continue;
    Node* pw = vu.SoleConsumer(g, dw.outputs[0]);
    if (pw == nullptr || removed.count(pw) || !IsPointwiseOver(g, *pw, dw.outputs[0], c)) continue;
    Absorb(dw, *pw);
    removed.insert(&dw);
    ++fused;
  }
  if (!removed.empty()) fusion::EraseNodes(g, removed);
  return fused;
}

}  // namespace vt
