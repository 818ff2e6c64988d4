#include "passes/pattern_util.h"

namespace vt {

namespace {
std::vector<std::shared_ptr<Graph>> Subgraphs(const Node& n) {
  std::vector<std::shared_ptr<Graph>> subs;
  for (const auto& [name, a] : n.attrs) {
    if (a.g) subs.push_back(a.g);
    subs.insert(subs.end(), a.graphs.begin(), a.graphs.end());
  }
  return subs;
}
}  // namespace

GraphIndex::GraphIndex(Graph& g) {
  for (auto& n : g.nodes) {
    for (const auto& o : n.outputs)
      if (!o.empty()) producer_[o] = &n;
    for (const auto& in : n.inputs)
      if (!in.empty()) {
        ++uses_[in];
        auto& r = readers_[in];
        if (r.empty() || r.back() != &n) r.push_back(&n);
      }
    for (const auto& sg : Subgraphs(n))
      for (const auto& ref : OuterReferences(*sg)) uses_[ref] += 1000;
  }
  for (const auto& o : g.outputs) {
    uses_[o.name] += 1000;
    outputs_.insert(o.name);
  }
}

Node* GraphIndex::Producer(const std::string& v, const char* op) const {
  auto it = producer_.find(v);
  if (it == producer_.end()) return nullptr;
  if (op != nullptr && !IsOp(it->second, op)) return nullptr;
  return it->second;
}

int GraphIndex::Uses(const std::string& v) const {
  auto it = uses_.find(v);
  return it == uses_.end() ? 0 : it->second;
}

const std::vector<Node*>& GraphIndex::Readers(const std::string& v) const {
  static const std::vector<Node*> kNone;
  auto it = readers_.find(v);
  return it == readers_.end() ? kNone : it->second;
}

Node* GraphIndex::SoleReader(const std::string& v) const {
  if (Uses(v) != 1) return nullptr;
  const auto& r = Readers(v);
  return r.size() == 1 ? r[0] : nullptr;
}

const Tensor* F32Initializer(const Graph& g, const std::string& name) {
  if (name.empty()) return nullptr;
  const Tensor* t = g.FindInitializer(name);
  return t != nullptr && t->dtype() == DType::kFloat32 ? t : nullptr;
}

std::optional<float> ScalarF32(const Graph& g, const std::string& name) {
  const Tensor* t = F32Initializer(g, name);
  if (t == nullptr || t->numel() != 1 || t->rank() > 1) return std::nullopt;
  return static_cast<float>(t->GetDouble(0));
}

std::optional<std::vector<int64_t>> IntsInitializer(const Graph& g, const std::string& name) {
  if (name.empty()) return std::nullopt;
  const Tensor* t = g.FindInitializer(name);
  if (t == nullptr || t->rank() > 1 || (t->dtype() != DType::kInt64 && t->dtype() != DType::kInt32))
    return std::nullopt;
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t->numel(); ++i) v.push_back(t->GetInt64(i));
  return v;
}

namespace {
// Ops whose output 0 has the element type of input 0.
bool KeepsFirstType(const std::string& op) {
  static const std::unordered_set<std::string> kOps = {
      "Add", "Sub", "Mul", "Div", "Neg", "Abs", "Sqrt", "Reciprocal", "Exp", "Erf", "Tanh",
      "Sigmoid", "Relu", "Gelu", "Softmax", "Slice", "Gather", "Concat", "Unsqueeze", "Squeeze",
      "Reshape", "Transpose", "Expand", "Flatten", "Identity", "Pow", "ReduceMean", "MatMul",
      "LayerNormalization", "RMSNormalization", "Where"};
  return kOps.count(op) > 0;
}
}  // namespace

std::optional<DType> ElemType(const Graph& g, const GraphIndex& gi, const std::string& v0) {
  std::string v = v0;
  for (int depth = 0; depth < 64 && !v.empty(); ++depth) {
    if (const Tensor* t = g.FindInitializer(v)) return t->dtype();
    for (const auto& in : g.inputs)
      if (in.name == v && in.spec.dtype() != DType::kUndefined) return in.spec.dtype();
    Node* p = gi.Producer(v);
    if (p == nullptr) return std::nullopt;
    if (p->op_type == "Cast") return static_cast<DType>(p->GetInt("to", 0));
    if (!KeepsFirstType(p->op_type) || p->inputs.empty()) return std::nullopt;
    // Where's first input is the condition: its value type is input 1's.
    v = p->op_type == "Where" ? (p->inputs.size() > 1 ? p->inputs[1] : "") : p->inputs[0];
  }
  return std::nullopt;
}

bool IsOp(const Node* n, const char* op) {
  return n != nullptr && n->domain.empty() && n->op_type == op;
}

const std::string* OtherOperand(const Node* n, const std::string& x) {
  if (n == nullptr || n->inputs.size() != 2) return nullptr;
  const std::string& a = n->inputs.front();
  const std::string& b = n->inputs.back();
  if (a == x) return &b;
  if (b == x) return &a;
  return nullptr;
}

std::string FreshValueName(const Graph& g, const std::string& base) {
  std::string n = base;
  auto taken = [&](const std::string& s) {
    if (g.initializers.count(s) || g.values.count(s)) return true;
    for (const auto& node : g.nodes)
      for (const auto& o : node.outputs)
        if (o == s) return true;
    return false;
  };
  for (int i = 1; taken(n); ++i) n = base + "." + std::to_string(i);
  return n;
}

std::string AsRowInitializer(Graph& g, const std::string& name) {
  const Tensor* t = g.FindInitializer(name);
  if (t->rank() == 1) return name;
  std::string n = FreshValueName(g, name + ".vt_row");
  Tensor c = t->Contiguous();
  g.SetInitializer(n, Tensor::FromF32(std::vector<float>(c.data<float>(), c.data<float>() + c.numel()),
                                      {c.numel()}));
  return n;
}

void EraseNodes(Graph& g, const std::unordered_set<const Node*>& removed) {
  if (removed.empty()) return;
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (auto& n : g.nodes)
    if (!removed.count(&n)) kept.push_back(std::move(n));
  g.nodes = std::move(kept);
}

size_t RemoveDeadNodes(Graph& g) {
  size_t total = 0;
  for (;;) {
    std::unordered_set<std::string> read;
    for (const auto& n : g.nodes) {
      for (const auto& in : n.inputs) read.insert(in);
      for (const auto& sg : Subgraphs(n))
        for (const auto& r : OuterReferences(*sg)) read.insert(r);
    }
    for (const auto& o : g.outputs) read.insert(o.name);
    std::unordered_set<const Node*> dead;
    for (const auto& n : g.nodes) {
      bool used = false;
      for (const auto& o : n.outputs) used = used || (!o.empty() && read.count(o));
      if (!used) dead.insert(&n);
    }
    if (dead.empty()) break;
    total += dead.size();
    EraseNodes(g, dead);
  }
  std::unordered_set<std::string> read;
  for (const auto& n : g.nodes) {
    for (const auto& in : n.inputs) read.insert(in);
    for (const auto& sg : Subgraphs(n))
      for (const auto& r : OuterReferences(*sg)) read.insert(r);
  }
  for (const auto& o : g.outputs) read.insert(o.name);
  for (const auto& in : g.inputs) read.insert(in.name);
  for (auto it = g.initializers.begin(); it != g.initializers.end();)
    it = read.count(it->first) ? std::next(it) : g.initializers.erase(it);
  return total;
}

}  // namespace vt
