#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "tools/commands.h"
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

int InfoCommand(const std::string& path) {
  ImportOptions io;
  io.infer_shapes = false;
  auto m = LoadModel(path, io);
  if (!m.ok()) {
    fmt::print(stderr, "error: {}\n", m.status().message());
    return 2;
  }
  const Model& model = *m;
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
  size_t bytes = 0;
  for (const auto& [n, t] : model.graph->initializers) bytes += t.nbytes();
  fmt::print("initializers: {} ({} bytes)\n", model.graph->initializers.size(), bytes);
  std::map<std::string, int> hist;
  CountOps(*model.graph, hist);
  int total = 0;
  for (const auto& [k, v] : hist) total += v;
  fmt::print("nodes: {}\nop histogram:\n", total);
  std::vector<std::pair<int, std::string>> sorted;
  for (const auto& [k, v] : hist) sorted.push_back({-v, k});
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [c, k] : sorted) fmt::print("  {:<28} {}\n", k, -c);
  return 0;
}

}  // namespace vt::cli
