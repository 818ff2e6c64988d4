#include "vtensor/passes/constant_folding.h"

#include <set>
#include <unordered_set>

#include "exec/graph_runner.h"
#include "vtensor/exec/kernel.h"

namespace vt {

namespace {

bool NeverFold(const Node& n) {
  static const std::set<std::string> kNondeterministic = {
      "RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike",
      "Bernoulli",     "Multinomial",  "Dropout"};
  if (!n.domain.empty()) return true;  // only standard ops: their semantics are known
  if (kNondeterministic.count(n.op_type)) return true;
  for (const auto& [name, a] : n.attrs)
    if (a.g || !a.graphs.empty()) return true;
  return false;
}

}  // namespace

Status FoldConstants(Graph& graph, const Model& model, const FoldOptions& opts, FoldStats* stats) {
  auto order = graph.TopologicalOrder();
  if (!order.ok()) return Status::Ok();  // reported with context when the session prepares
  std::unordered_set<std::string> graph_outputs;
  for (const auto& o : graph.outputs) graph_outputs.insert(o.name);
  std::vector<bool> folded(graph.nodes.size(), false);
  for (size_t idx : *order) {
    Node& node = graph.nodes[idx];
    if (NeverFold(node)) continue;
    std::vector<Value> inputs;
    std::vector<const Value*> ptrs;
    bool all_const = true;
    size_t in_bytes = 0;
    inputs.reserve(node.inputs.size());
    for (const auto& in : node.inputs) {
      if (in.empty()) {
        ptrs.push_back(nullptr);
        continue;
      }
      const Tensor* t = graph.FindInitializer(in);
      if (t == nullptr) {
        all_const = false;
        break;
      }
      in_bytes += t->nbytes();
      inputs.emplace_back(*t);
    }
    if (!all_const) continue;
    ptrs.clear();
    {
      size_t k = 0;
      for (const auto& in : node.inputs) ptrs.push_back(in.empty() ? nullptr : &inputs[k++]);
    }
    auto kernel = CreateKernel(node, graph, model);
    if (!kernel.ok()) continue;
    std::vector<Value> outs(node.outputs.size());
    KernelContext ctx(node, ptrs, &outs, nullptr, 1);
    if (!(*kernel)->Compute(ctx).ok()) continue;
    bool ok = true;
    size_t out_bytes = 0;
    for (size_t o = 0; o < outs.size(); ++o) {
      if (node.outputs[o].empty()) continue;
      if (!outs[o].is_tensor()) ok = false;
      else out_bytes += outs[o].tensor().nbytes();
    }
    if (!ok) continue;
    if (out_bytes > opts.max_output_bytes && out_bytes > in_bytes) {
      if (stats) ++stats->skipped_large;
      continue;
    }
    for (size_t o = 0; o < outs.size(); ++o) {
      const std::string& name = node.outputs[o];
      if (name.empty()) continue;
      // Views of other constants are materialised so kernels can prepack them directly.
      graph.SetInitializer(name, outs[o].tensor().Contiguous());
    }
    folded[idx] = true;
    if (stats) ++stats->folded_nodes;
  }
  std::vector<Node> kept;
  kept.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (!folded[i]) kept.push_back(std::move(graph.nodes[i]));
  graph.nodes = std::move(kept);
  // Subgraphs see the parent's new initializers as outer-scope constants.
  for (auto& node : graph.nodes)
    for (auto& [name, a] : node.attrs) {
      if (a.g) VT_RETURN_IF_ERROR(FoldConstants(*a.g, model, opts, stats));
      for (auto& sg : a.graphs) VT_RETURN_IF_ERROR(FoldConstants(*sg, model, opts, stats));
    }
  return Status::Ok();
}

}  // namespace vt
