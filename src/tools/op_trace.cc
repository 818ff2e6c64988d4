#include "tools/op_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "vtensor/base/file.h"

namespace vt::cli {

namespace {
nlohmann::json Signature(const std::vector<std::pair<DType, Shape>>& vals) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [dt, shape] : vals)
    out.push_back(dt == DType::kUndefined ? std::string() : DTypeName(dt) + ShapeToString(shape));
  return out;
}
}  // namespace

Status WriteChromeTrace(const std::vector<OpEvent>& events, const std::string& path) {
  nlohmann::json list = nlohmann::json::array();
  for (const OpEvent& e : events) {
    const std::string op_type = OpProfile::OpType(*e.node);
    list.push_back({{"name", e.node->name.empty() ? op_type : e.node->name},
                    {"cat", op_type},
                    {"ph", "X"},
                    {"ts", e.start_us},
                    {"dur", e.dur_us},
                    {"pid", 1},
                    {"tid", e.thread},
                    {"args",
                     {{"op_type", op_type},
                      {"depth", e.depth},
                      {"self_us", e.self_us},
                      {"inputs", Signature(e.inputs)},
                      {"outputs", Signature(e.outputs)}}}});
  }
  const nlohmann::json doc = {{"traceEvents", list}, {"displayTimeUnit", "ms"}};
  return WriteFileAtomic(path, doc.dump() + "\n");
}

std::vector<OpTypeTotal> SlowestOpTypes(const std::vector<OpEvent>& events, int k) {
  std::map<std::string, OpTypeTotal> by_type;
  for (const OpEvent& e : events) {
    const std::string op_type = OpProfile::OpType(*e.node);
    OpTypeTotal& t = by_type[op_type];
    t.op_type = op_type;
    t.total_ms += e.self_us / 1000.0;
    ++t.count;
  }
  std::vector<OpTypeTotal> out;
  out.reserve(by_type.size());
  for (auto& [name, t] : by_type) out.push_back(t);
  std::stable_sort(out.begin(), out.end(),
                   [](const OpTypeTotal& a, const OpTypeTotal& b) { return a.total_ms > b.total_ms; });
  if (k > 0 && out.size() > static_cast<size_t>(k)) out.resize(static_cast<size_t>(k));
  return out;
}

std::string FormatTopOpTypes(const std::vector<OpEvent>& events, int k, int runs, double run_ms) {
  std::string out = fmt::format("top {} op types by self time over {} runs ({:.3f} ms):\n", k,
                                runs, run_ms);
  out += fmt::format("  {:<28} {:>12} {:>8} {:>7}\n", "op_type", "total_ms", "count", "%run");
  for (const OpTypeTotal& t : SlowestOpTypes(events, k))
    out += fmt::format("  {:<28} {:>12.4f} {:>8} {:>6.1f}%\n", t.op_type, t.total_ms, t.count,
                       run_ms > 0 ? 100.0 * t.total_ms / run_ms : 0.0);
  return out;
}

std::vector<OpTypeFirstRun> FirstRunOpTypes(const std::vector<OpEvent>& first,
                                            const std::vector<OpEvent>& timed, int runs, int k) {
  std::map<std::string, OpTypeFirstRun> by_type;
  for (const OpTypeTotal& t : SlowestOpTypes(first, 0)) {
    OpTypeFirstRun& r = by_type[t.op_type];
    r.op_type = t.op_type;
    r.first_ms = t.total_ms;
    r.count = t.count;
  }
  for (const OpTypeTotal& t : SlowestOpTypes(timed, 0)) {
    OpTypeFirstRun& r = by_type[t.op_type];
    r.op_type = t.op_type;
    r.steady_ms = t.total_ms / std::max(runs, 1);
  }
  std::vector<OpTypeFirstRun> out;
  out.reserve(by_type.size());
  for (auto& [name, r] : by_type) out.push_back(r);
  std::stable_sort(out.begin(), out.end(), [](const OpTypeFirstRun& a, const OpTypeFirstRun& b) {
    return a.first_ms - a.steady_ms > b.first_ms - b.steady_ms;
  });
  if (k > 0 && out.size() > static_cast<size_t>(k)) out.resize(static_cast<size_t>(k));
  return out;
}

std::string FormatFirstRunOpTypes(const std::vector<OpEvent>& first,
                                  const std::vector<OpEvent>& timed, int runs, int k,
                                  double first_run_ms) {
  double nodes_ms = 0;
  for (const OpEvent& e : first) nodes_ms += e.self_us / 1000.0;
  std::string out = fmt::format(
      "first run ({:.3f} ms; nodes {:.3f} ms, outside the nodes {:.3f} ms): top {} op types by "
      "self time above the timed runs' mean:\n",
      first_run_ms, nodes_ms, first_run_ms - nodes_ms, k);
  out += fmt::format("  {:<28} {:>12} {:>12} {:>12} {:>8}\n", "op_type", "first_ms", "steady_ms",
                     "extra_ms", "count");
  for (const OpTypeFirstRun& t : FirstRunOpTypes(first, timed, runs, k))
    out += fmt::format("  {:<28} {:>12.4f} {:>12.4f} {:>12.4f} {:>8}\n", t.op_type, t.first_ms,
                       t.steady_ms, t.first_ms - t.steady_ms, t.count);
  return out;
}

}  // namespace vt::cli
