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
      out->phases[PhaseTimes::kMax - 1].faults += p.faults;
      continue;
    }
    PhaseTimes::Phase& q = out->phases[out->count++];
    std::snprintf(q.name, sizeof q.name, "%s", p.name.c_str());
    q.ms = p.ms;
    q.faults = p.faults;
  }
}

namespace {
struct PhaseSum {
  double ms = 0;
  int64_t faults = 0;
};
}  // namespace

std::string PhaseTable(const std::vector<std::pair<std::string, PhaseTimes>>& rows) {
  std::vector<std::string> names;
  std::vector<std::map<std::string, PhaseSum>> sums(rows.size());
  for (size_t r = 0; r < rows.size(); ++r)
    for (int i = 0; i < rows[r].second.count; ++i) {
      const PhaseTimes::Phase& p = rows[r].second.phases[i];
      const std::string n = p.name;
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
      sums[r][n].ms += p.ms;
      sums[r][n].faults += p.faults;
    }
  std::string out = fmt::format("{:<28}", "phase");
  for (const auto& [name, t] : rows) out += fmt::format(" {:>18}", name);
  out += fmt::format("\n{:<28}", "");
  for (size_t r = 0; r < rows.size(); ++r) out += fmt::format(" {:>10} {:>7}", "ms", "faults");
  out += "\n";
  std::vector<PhaseSum> totals(rows.size());
  for (const std::string& n : names) {
    out += fmt::format("{:<28}", n);
    for (size_t r = 0; r < rows.size(); ++r) {
      auto it = sums[r].find(n);
      if (it == sums[r].end()) {
        out += fmt::format(" {:>10} {:>7}", "-", "-");
        continue;
      }
      out += fmt::format(" {:>10.2f} {:>7}", it->second.ms, it->second.faults);
      totals[r].ms += it->second.ms;
      totals[r].faults += it->second.faults;
    }
    out += "\n";
  }
  out += fmt::format("{:<28}", "total");
  for (const PhaseSum& t : totals) out += fmt::format(" {:>10.2f} {:>7}", t.ms, t.faults);
  return out + "\n";
}

}  // namespace vt::cli
