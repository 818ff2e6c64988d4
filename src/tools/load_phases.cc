#include "tools/load_phases.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace vt::cli {

void RecordPhases(const std::vector<LoadPhase>& phases, PhaseTimes* out) {
  out->count = 0;
  for (const LoadPhase& p : phases) {
    if (out->count == PhaseTimes::kMax) {
      out->phases[PhaseTimes::kMax - 1].ms += p.ms;
      continue;
    }
    PhaseTimes::Phase& q = out->phases[out->count++];
    std::snprintf(q.name, sizeof q.name, "%s", p.name.c_str());
    q.ms = p.ms;
  }
}

std::string PhaseTable(const std::vector<std::pair<std::string, PhaseTimes>>& rows) {
  std::vector<std::string> names;
  std::vector<std::map<std::string, double>> sums(rows.size());
  for (size_t r = 0; r < rows.size(); ++r)
    for (int i = 0; i < rows[r].second.count; ++i) {
      const std::string n = rows[r].second.phases[i].name;
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
      sums[r][n] += rows[r].second.phases[i].ms;
    }
  std::string out = fmt::format("{:<28}", "phase (ms)");
  for (const auto& [name, t] : rows) out += fmt::format(" {:>14}", name);
  out += "\n";
  std::vector<double> totals(rows.size(), 0);
  for (const std::string& n : names) {
    out += fmt::format("{:<28}", n);
    for (size_t r = 0; r < rows.size(); ++r) {
      auto it = sums[r].find(n);
      out += it == sums[r].end() ? fmt::format(" {:>14}", "-") : fmt::format(" {:>14.2f}", it->second);
      if (it != sums[r].end()) totals[r] += it->second;
    }
    out += "\n";
  }
  out += fmt::format("{:<28}", "total");
  for (double t : totals) out += fmt::format(" {:>14.2f}", t);
  return out + "\n";
}

}  // namespace vt::cli
