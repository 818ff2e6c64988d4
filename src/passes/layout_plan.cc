#include "vtensor/passes/layout_plan.h"

#include "vtensor/graph/tensor_meta.h"

namespace vt {

namespace {

Status Collect(const Graph& g, std::vector<PlannedLayout>* out) {
  for (const auto& [name, t] : g.initializers) {  // std::map: sorted by name
    auto it = g.values.find(name);
    if (it == g.values.end()) continue;
    auto l = TensorLayout(it->second);
    if (!l.ok()) return l.take_status().WithContext("value '" + name + "'");
    if (!l->has_value()) continue;
    out->push_back({name, it->second.identity().value_or(name), TensorLayoutOrigin(it->second),
                    **l, &g});
  }
  for (const auto& n : g.nodes)
    for (const auto& [an, a] : n.attrs) {
      if (a.g) VT_RETURN_IF_ERROR(Collect(*a.g, out));
      for (const auto& sg : a.graphs) VT_RETURN_IF_ERROR(Collect(*sg, out));
    }
  return Status::Ok();
}

}  // namespace

Expected<std::vector<PlannedLayout>> CollectPlannedLayouts(const Model& model) {
  std::vector<PlannedLayout> out;
  if (model.graph) VT_RETURN_IF_ERROR(Collect(*model.graph, &out));
  return out;
}

}  // namespace vt
