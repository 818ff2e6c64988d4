// FuseHardSwish (passes/fusion.h): Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6), or Mul(..., 1/6)
// instead of the Div, becomes one HardSwish(x).
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "passes/fusion_util.h"
#include "vtensor/passes/fusion.h"

namespace vt {
namespace {

using fusion::IsScalarConst;

// Clip(v, 0, 6) with constant bounds (inputs from opset 11, attributes before).
bool ClipsToZeroSix(const Graph& g, const Node& clip) {
  if (clip.opset >= 11)
    return clip.inputs.size() == 3 && IsScalarConst(g, clip.inputs[1], 0.0) &&
           IsScalarConst(g, clip.inputs[2], 6.0);
  return clip.GetFloat("min", -1) == 0.0f && clip.GetFloat("max", -1) == 6.0f;
}

// The product m that `d` divides by 6 (Div(m, 6), Mul(m, 1/6) or Mul(1/6, m)); empty when `d`
// is none of these.
std::string SixthOf(const Graph& g, const Node& d) {
  if (d.op_type == "Div" && IsScalarConst(g, d.inputs[1], 6.0)) return d.inputs[0];
  if (d.op_type == "Mul") {
    if (IsScalarConst(g, d.inputs[1], 1.0 / 6.0, 1e-7)) return d.inputs[0];
    if (IsScalarConst(g, d.inputs[0], 1.0 / 6.0, 1e-7)) return d.inputs[1];
  }
  return {};
}

// The nodes of one matched pattern ending at `d`.
struct HardSwishMatch {
  Node* add = nullptr;
  Node* clip = nullptr;
  Node* mul = nullptr;
  std::string x;
};

// Matches Mul(x, Clip(Add(x, 3), 0, 6)) (either operand order) at `mul`; every intermediate
// read only by the next node and not yet absorbed.
bool MatchClippedProduct(const Graph& g, const fusion::ValueUses& vu,
                         const std::unordered_map<std::string, Node*>& producers,
                         const std::unordered_set<const Node*>& removed, Node* mul,
                         HardSwishMatch* match) {
  for (size_t side = 0; side < 2; ++side) {
    const std::string& clip_out = mul->inputs[side];
    const std::string& x = mul->inputs[1 - side];
    Node* clip = fusion::ProducedBy(producers, clip_out, "Clip");
    if (clip == nullptr || vu.Uses(clip_out) != 1 || removed.count(clip)) continue;
    if (!ClipsToZeroSix(g, *clip)) continue;
    const std::string& add_out = clip->inputs[0];
    Node* add = fusion::ProducedBy(producers, add_out, "Add");
    if (add == nullptr || vu.Uses(add_out) != 1 || add->inputs.size() != 2 || removed.count(add))
      continue;
    const bool add_ok = (add->inputs[0] == x && IsScalarConst(g, add->inputs[1], 3.0)) ||
                        (add->inputs[1] == x && IsScalarConst(g, add->inputs[0], 3.0));
    if (!add_ok) continue;
    *match = {add, clip, mul, x};
    return true;
  }
  return false;
}

}  // namespace

size_t FuseHardSwish(Graph& g) {
  size_t fused = fusion::FuseSubgraphs(g, FuseHardSwish);
  const fusion::ValueUses vu(g);
  const std::unordered_map<std::string, Node*> producers = fusion::Producers(g, {});
  std::unordered_set<const Node*> removed;
  for (auto& d : g.nodes) {
    if (!d.domain.empty() || d.inputs.size() != 2 || removed.count(&d)) continue;
    const std::string m = SixthOf(g, d);
    if (m.empty() || vu.Uses(m) != 1) continue;
    Node* mul = fusion::ProducedBy(producers, m, "Mul");
    if (mul == nullptr || mul->inputs.size() != 2 || removed.count(mul)) continue;
    HardSwishMatch match;
    if (!MatchClippedProduct(g, vu, producers, removed, mul, &match)) continue;
    removed.insert({match.add, match.clip, match.mul});
    d.op_type = "HardSwish";
    d.opset = std::max<int64_t>(d.opset, 14);  // HardSwish exists from opset 14
    d.inputs = {match.x};
    d.attrs.clear();
    ++fused;
  }
  fusion::EraseNodes(g, removed);
  return fused;
}

}  // namespace vt
