// fold-initializers: folds every initializer-only subgraph into initializers (docs/design.md §3.3
// "constant handling"), reusing the runtime's evaluator (runtime/constant_folding.h), and
// keeps the metadata of every value that survives. Constant nodes become initializers named
// after their output, which is the canonical identity of a Constant node value.
// Errors: only FoldConstants' internal failures.
#include <unordered_map>

#include "vtensor/graph/tensor_meta.h"
#include "vtensor/passes/pass.h"
#include "vtensor/passes/constant_folding.h"

namespace vt {

namespace {

using MetaSnapshot = std::unordered_map<const Graph*, std::unordered_map<std::string, TensorSpec>>;

void Snapshot(const Graph& g, MetaSnapshot& out) {
  out[&g] = g.values;
  for (const auto& n : g.nodes)
    for (const auto& [name, a] : n.attrs) {
      if (a.g) Snapshot(*a.g, out);
      for (const auto& sg : a.graphs) Snapshot(*sg, out);
    }
}

// Puts back metadata keys the folder's fresh TensorSpecs do not carry.
void Restore(Graph& g, const MetaSnapshot& snap) {
  auto it = snap.find(&g);
  if (it != snap.end())
    for (auto& [name, spec] : g.values) {
      auto old = it->second.find(name);
      if (old == it->second.end()) continue;
      for (const auto& [k, v] : old->second.metadata())
        if (spec.FindMeta(k) == nullptr) spec.SetMeta(k, v);
    }
  for (auto& n : g.nodes)
    for (auto& [name, a] : n.attrs) {
      if (a.g) Restore(*a.g, snap);
      for (auto& sg : a.graphs) Restore(*sg, snap);
    }
}

// Every initializer records its stored encoding (capture fills it for loaded weights; folded
// values are new).
void RecordEncodings(Graph& g) {
  for (const auto& [name, t] : g.initializers) {
    TensorSpec& spec = g.values[name];
    if (spec.type().kind == TypeInfo::Kind::kUnknown) {
      SymShape s;
      for (int64_t d : t.shape()) s.push_back(Dim{d, ""});
      spec.mutable_type() = TypeInfo::Tensor(t.dtype(), s);
    }
    if (!TensorEncoding(spec))
      if (auto e = EncodingFromDType(t.dtype())) SetTensorEncoding(spec, *e);
  }
  for (auto& n : g.nodes)
    for (auto& [name, a] : n.attrs) {
      if (a.g) RecordEncodings(*a.g);
      for (auto& sg : a.graphs) RecordEncodings(*sg);
    }
}

class FoldInitializersPass final : public Pass {
 public:
  const char* name() const override { return "fold-initializers"; }
  Status Run(Model& model, const PassContext& ctx) override {
    MetaSnapshot snap;
    Snapshot(*model.graph, snap);
    FoldStats stats;
    VT_RETURN_IF_ERROR(FoldConstants(*model.graph, model, FoldOptions{}, &stats));
    Restore(*model.graph, snap);
    RecordEncodings(*model.graph);
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldInitializersPass() { return std::make_unique<FoldInitializersPass>(); }

}  // namespace vt
