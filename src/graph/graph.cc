#include "vtensor/graph/graph.h"

#include <deque>
#include <unordered_set>

namespace vt {

int64_t Node::GetInt(const std::string& n, int64_t def) const {
  const Attribute* a = FindAttr(n);
  return a && a->type == Attribute::Type::kInt ? a->i : def;
}
float Node::GetFloat(const std::string& n, float def) const {
  const Attribute* a = FindAttr(n);
  return a && a->type == Attribute::Type::kFloat ? a->f : def;
}
std::string Node::GetString(const std::string& n, const std::string& def) const {
  const Attribute* a = FindAttr(n);
  return a && a->type == Attribute::Type::kString ? a->s : def;
}
std::vector<int64_t> Node::GetInts(const std::string& n) const {
  const Attribute* a = FindAttr(n);
  return a && a->type == Attribute::Type::kInts ? a->ints : std::vector<int64_t>{};
}
std::vector<float> Node::GetFloats(const std::string& n) const {
  const Attribute* a = FindAttr(n);
  return a && a->type == Attribute::Type::kFloats ? a->floats : std::vector<float>{};
}
std::vector<std::string> Node::GetStrings(const std::string& n) const {
  const Attribute* a = FindAttr(n);
  return a && a->type == Attribute::Type::kStrings ? a->strings : std::vector<std::string>{};
}
std::string Node::Describe() const {
  std::string d = "node '" + name + "' (" + (domain.empty() ? "" : domain + ".") + op_type +
                  ", opset " + std::to_string(opset) + ")";
  return d;
}

bool Graph::IsVisible(const std::string& n) const {
  for (const Graph* g = this; g != nullptr; g = g->parent) {
    if (g->initializers.count(n)) return true;
    for (const auto& in : g->inputs)
      if (in.name == n) return true;
    for (const auto& node : g->nodes)
      for (const auto& o : node.outputs)
        if (o == n) return true;
  }
  return false;
}

const Tensor* Graph::FindInitializer(const std::string& n) const {
  for (const Graph* g = this; g != nullptr; g = g->parent) {
    auto it = g->initializers.find(n);
    if (it != g->initializers.end()) return &it->second;
    for (const auto& in : g->inputs)
      if (in.name == n) return nullptr;
    for (const auto& node : g->nodes)
      for (const auto& o : node.outputs)
        if (o == n) return nullptr;
  }
  return nullptr;
}

std::vector<const GraphIO*> Graph::RealInputs() const {
  std::vector<const GraphIO*> r;
  for (const auto& in : inputs)
    if (!initializers.count(in.name)) r.push_back(&in);
  return r;
}

namespace {
// Names a subgraph reads from its enclosing scopes (recursively).
void CollectOuterRefs(const Graph& g, std::unordered_set<std::string>& out) {
  std::unordered_set<std::string> local;
  for (const auto& in : g.inputs) local.insert(in.name);
  for (const auto& [n, t] : g.initializers) local.insert(n);
  for (const auto& node : g.nodes)
    for (const auto& o : node.outputs) local.insert(o);
  for (const auto& node : g.nodes) {
    for (const auto& i : node.inputs)
      if (!i.empty() && !local.count(i)) out.insert(i);
    for (const auto& [an, a] : node.attrs) {
      std::vector<std::shared_ptr<Graph>> subs = a.graphs;
      if (a.g) subs.push_back(a.g);
      for (const auto& sg : subs) {
        std::unordered_set<std::string> inner;
        CollectOuterRefs(*sg, inner);
        for (const auto& n : inner)
          if (!local.count(n)) out.insert(n);
      }
    }
  }
}
}  // namespace

std::vector<std::string> OuterReferences(const Graph& g) {
  std::unordered_set<std::string> refs;
  CollectOuterRefs(g, refs);
  return {refs.begin(), refs.end()};
}

Expected<std::vector<size_t>> Graph::TopologicalOrder() const {
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& o : nodes[i].outputs) {
      if (o.empty()) continue;
      if (producer.count(o))
        return InvalidArgument("value '" + o + "' is produced by two nodes: " +
                               nodes[producer[o]].Describe() + " and " + nodes[i].Describe());
      producer[o] = i;
    }
  }
  std::unordered_set<std::string> available;
  for (const auto& in : inputs) available.insert(in.name);
  for (const auto& [n, t] : initializers) available.insert(n);

  std::vector<std::vector<size_t>> consumers(nodes.size());
  std::vector<size_t> pending(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::unordered_set<std::string> deps;
    for (const auto& in : nodes[i].inputs)
      if (!in.empty()) deps.insert(in);
    for (const auto& [an, a] : nodes[i].attrs) {
      std::vector<std::shared_ptr<Graph>> subs = a.graphs;
      if (a.g) subs.push_back(a.g);
      for (const auto& sg : subs) CollectOuterRefs(*sg, deps);
    }
    for (const auto& d : deps) {
      auto it = producer.find(d);
      if (it != producer.end()) {
        if (it->second == i)
          return InvalidArgument("graph has a cycle: " + nodes[i].Describe() +
                                 " consumes its own output '" + d + "'");
        consumers[it->second].push_back(i);
        ++pending[i];
      } else if (!available.count(d)) {
        bool outer = false;
        for (const Graph* g = parent; g != nullptr && !outer; g = g->parent) outer = g->IsVisible(d);
        if (!outer)
          return InvalidArgument(nodes[i].Describe() + " reads undefined value '" + d + "'");
      }
    }
  }
  std::deque<size_t> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0) ready.push_back(i);
  std::vector<size_t> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    size_t n = ready.front();
    ready.pop_front();
    order.push_back(n);
    for (size_t c : consumers[n])
      if (--pending[c] == 0) ready.push_back(c);
  }
  if (order.size() != nodes.size()) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (pending[i] != 0)
        return InvalidArgument("graph has a cycle through " + nodes[i].Describe());
  }
  return order;
}

void Graph::SetInitializer(const std::string& name, Tensor t) {
  t.set_name(name);
  TensorSpec spec(TypeInfo::Tensor(t.dtype(), std::nullopt));
  SymShape s;
  for (int64_t d : t.shape()) s.push_back(Dim{d, ""});
  spec.mutable_type().shape = s;
  spec.set_identity(name);
  values[name] = spec;
  initializers[name] = std::move(t);
}

}  // namespace vt
