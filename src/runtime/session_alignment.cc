#include "runtime/session_alignment.h"

#include <map>

#include "vtensor/forms/weight_use.h"
#include "vtensor/tensor/natural_alignment.h"

namespace vt {

namespace {

// Every value name nodes of `g` and its subgraphs read.
void SubgraphInputs(const Graph& g, std::set<std::string>* out) {
  for (const Node& n : g.nodes) {
    out->insert(n.inputs.begin(), n.inputs.end());
    for (const auto& [name, a] : n.attrs) {
      if (a.g) SubgraphInputs(*a.g, out);
      for (const auto& sg : a.graphs) SubgraphInputs(*sg, out);
    }
  }
}

// Source names of ext's entries for `isa` and `profile`.
std::set<std::string> EntrySources(const vtensor::ModelExtension& ext, IsaLevel isa,
                                   WeightProfile profile) {
  std::set<std::string> out;
  const std::string arch = IsaArchitecture(isa), prof = WeightProfileName(profile);
  for (const auto& ct : ext.compiled_tensors()) {
    if (ct.device() < 0 || ct.device() >= ext.devices_size() ||
        ext.devices(ct.device()).architecture() != arch)
      continue;
    std::string p = "exact";
    for (const auto& kv : ct.metadata_props())
      if (kv.key() == "vt.profile") p = kv.value();
    if (p == prof) out.insert(ct.source_name());
  }
  return out;
}

size_t AlignTensor(Tensor& t) {
  if (IsNaturallyAligned(t)) return 0;
  t = NaturallyAligned(t);
  return t.nbytes();
}

}  // namespace

std::set<std::string> PackedOnlyWeights(const Graph& g, const vtensor::ModelExtension* ext,
                                        IsaLevel isa, WeightProfile profile) {
  std::set<std::string> keep;
  if (ext == nullptr || ext->compiled_tensors_size() == 0) return keep;
  const std::set<std::string> entries = EntrySources(*ext, isa, profile);
  std::map<std::string, bool> packed_only;  // initializer -> every read so far is a packing
  for (const Node& n : g.nodes)
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (!g.initializers.count(n.inputs[i])) continue;
      const bool packs = FindWeightConsumer(n.domain, n.op_type, i) != nullptr;
      auto [it, fresh] = packed_only.emplace(n.inputs[i], packs);
      if (!fresh) it->second = it->second && packs;
    }
  std::set<std::string> elsewhere;
  for (const Node& n : g.nodes)
    for (const auto& [name, a] : n.attrs) {
      if (a.g) SubgraphInputs(*a.g, &elsewhere);
      for (const auto& sg : a.graphs) SubgraphInputs(*sg, &elsewhere);
    }
  for (const auto& io : g.inputs) elsewhere.insert(io.name);
  for (const auto& io : g.outputs) elsewhere.insert(io.name);
  for (const auto& [name, only] : packed_only)
    if (only && entries.count(name) && !elsewhere.count(name)) keep.insert(name);
  return keep;
}

size_t AlignGraphTensors(Graph& g, const std::set<std::string>& keep) {
  size_t copied = 0;
  const bool main = g.parent == nullptr;
  for (auto& [name, t] : g.initializers)
    if (!(main && keep.count(name))) copied += AlignTensor(t);
  for (Node& n : g.nodes)
    for (auto& [name, a] : n.attrs) {
      copied += AlignTensor(a.t);
      for (Tensor& t : a.tensors) copied += AlignTensor(t);
      if (a.g) copied += AlignGraphTensors(*a.g, keep);
      for (auto& sg : a.graphs) copied += AlignGraphTensors(*sg, keep);
    }
  return copied;
}

}  // namespace vt
