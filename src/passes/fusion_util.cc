#include "passes/fusion_util.h"

#include <cmath>
#include <memory>

namespace vt::fusion {

size_t FuseSubgraphs(Graph& g, size_t (*fuse)(Graph&)) {
  size_t fused = 0;
  for (auto& node : g.nodes)
    for (auto& [name, a] : node.attrs) {
      if (a.g) fused += fuse(*a.g);
      for (auto& sg : a.graphs) fused += fuse(*sg);
    }
  return fused;
}

std::vector<std::string> SubgraphReads(const Node& node) {
  std::vector<std::string> reads;
  for (const auto& [an, a] : node.attrs) {
    std::vector<std::shared_ptr<Graph>> subs = a.graphs;
    if (a.g) subs.push_back(a.g);
    for (const auto& sg : subs)
      for (auto& r : OuterReferences(*sg)) reads.push_back(std::move(r));
  }
  return reads;
}

ValueUses::ValueUses(const Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& in : g.nodes[i].inputs)
      if (!in.empty()) {
        ++uses_[in];
        consumer_[in] = i;
      }
    for (const auto& r : SubgraphReads(g.nodes[i])) uses_[r] += 1000;
  }
  for (const auto& o : g.outputs) uses_[o.name] += 1000;
}

int ValueUses::Uses(const std::string& v) const {
  auto it = uses_.find(v);
  return it == uses_.end() ? 0 : it->second;
}

Node* ValueUses::SoleConsumer(Graph& g, const std::string& v) const {
  if (Uses(v) != 1) return nullptr;
  return &g.nodes[consumer_.at(v)];
}

std::unordered_map<std::string, Node*> Producers(Graph& g,
                                                 const std::unordered_set<const Node*>& removed) {
  std::unordered_map<std::string, Node*> producers;
  for (auto& n : g.nodes)
    if (!removed.count(&n))
      for (const auto& o : n.outputs)
        if (!o.empty()) producers[o] = &n;
  return producers;
}

Node* ProducedBy(const std::unordered_map<std::string, Node*>& producers, const std::string& v,
                 const char* op) {
  auto it = producers.find(v);
  if (it == producers.end()) return nullptr;
  Node* n = it->second;
  return n->op_type == op && n->domain.empty() ? n : nullptr;
}

const Tensor* F32Const(const Graph& g, const std::string& name) {
  if (name.empty()) return nullptr;
  const Tensor* t = g.FindInitializer(name);
  return t != nullptr && t->dtype() == DType::kFloat32 ? t : nullptr;
}

bool IsScalarConst(const Graph& g, const std::string& name, double want, double tol) {
  auto it = g.initializers.find(name);
  if (it == g.initializers.end()) return false;
  const Tensor& t = it->second;
  if (t.dtype() != DType::kFloat32 || t.numel() != 1) return false;
  return std::fabs(t.GetDouble(0) - want) <= tol;
}

void EraseNodes(Graph& g, const std::unordered_set<const Node*>& removed) {
  if (removed.empty()) return;
  std::vector<Node> kept;
  kept.reserve(g.nodes.size() - removed.size());
  for (auto& n : g.nodes)
    if (!removed.count(&n)) kept.push_back(std::move(n));
  g.nodes = std::move(kept);
}

std::string FreshName(const Graph& g, const std::string& base) {
  std::string n = base;
  for (int i = 1; g.initializers.count(n) || g.values.count(n); ++i)
    n = base + "." + std::to_string(i);
  return n;
}

}  // namespace vt::fusion
