#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "tools/commands.h"
#include "tools/json_types.h"
#include "vtensor/graph/onnx_import.h"

namespace vt::cli {

namespace {
void CountOps(const Graph& g, std::map<std::string, int>& hist) {
  for (const auto& n : g.nodes) {
    hist[(n.domain.empty() ? "" : n.domain + ".") + n.op_type]++;
    for (const auto& [an, a] : n.attrs) {
      if (a.g) CountOps(*a.g, hist);
      for (const auto& sg : a.graphs) CountOps(*sg, hist);
    }
  }
}
}  // namespace

int InfoCommand(const InfoArgs& a) {
  const std::string& path = a.model;
  ImportOptions io;
  io.infer_shapes = false;
  auto m = LoadModel(path, io);
  if (!m.ok()) {
    fmt::print(stderr, "error: {}\n", m.status().message());
    return 2;
  }
  const Model& model = *m;
  size_t bytes = 0;
  for (const auto& [n, t] : model.graph->initializers) bytes += t.nbytes();
  std::map<std::string, int> hist;
  CountOps(*model.graph, hist);
  int total = 0;
  for (const auto& [k, v] : hist) total += v;
  std::vector<std::pair<int, std::string>> sorted;
  sorted.reserve(hist.size());
  for (const auto& [k, v] : hist) sorted.push_back({-v, k});
  std::sort(sorted.begin(), sorted.end());
  if (a.json) {
    nlohmann::json opsets = nlohmann::json::object(), ins = nlohmann::json::array(),
                   outs = nlohmann::json::array(), ops = nlohmann::json::array();
    for (const auto& [d, v] : model.opsets) opsets[d.empty() ? "ai.onnx" : d] = v;
    auto io_json = [](const GraphIO& io) {
      nlohmann::json j = {{"name", io.name}};
      j.update(TypeJson(io.spec.type()));
      return j;
    };
    for (const GraphIO* in : model.graph->RealInputs()) ins.push_back(io_json(*in));
    for (const auto& o : model.graph->outputs) outs.push_back(io_json(o));
    for (const auto& [c, k] : sorted) ops.push_back({{"op", k}, {"count", -c}});
    PrintJson({{"model", path}, {"ir_version", model.ir_version},
               {"producer", {{"name", model.producer_name}, {"version", model.producer_version}}},
               {"opsets", opsets}, {"inputs", ins}, {"outputs", outs},
               {"initializers", {{"count", model.graph->initializers.size()}, {"bytes", bytes}}},
               {"nodes", total}, {"op_histogram", ops}});
    return 0;
  }
  fmt::print("model: {}\n", path);
  fmt::print("ir_version: {}\n", model.ir_version);
  fmt::print("producer: {} {}\n", model.producer_name, model.producer_version);
  fmt::print("opsets:");
  for (const auto& [d, v] : model.opsets) fmt::print(" {}={}", d.empty() ? "ai.onnx" : d, v);
  fmt::print("\ninputs:\n");
  for (const GraphIO* in : model.graph->RealInputs())
    fmt::print("  {}: {}\n", in->name, in->spec.type().ToString());
  fmt::print("outputs:\n");
  for (const auto& o : model.graph->outputs) fmt::print("  {}: {}\n", o.name, o.spec.type().ToString());
  fmt::print("initializers: {} ({} bytes)\n", model.graph->initializers.size(), bytes);
  fmt::print("nodes: {}\nop histogram:\n", total);
  for (const auto& [c, k] : sorted) fmt::print("  {:<28} {}\n", k, -c);
  return 0;
}

}  // namespace vt::cli
