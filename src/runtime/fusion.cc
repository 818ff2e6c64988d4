#include "vtensor/runtime/fusion.h"

#include <cmath>
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

}  // namespace vt
