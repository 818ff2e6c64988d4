#include "vtensor/forms/cache_summary.h"

#include <algorithm>
#include <set>
#include <utility>

namespace vt {

size_t CacheSummary::missed() const {
  size_t n = 0;
  for (const auto& [reason, count] : misses) n += count;
  return n;
}

CacheSummary SummarizeCache(const std::vector<CacheEntryReport>& report) {
  CacheSummary s;
  s.entries = report.size();
  std::set<std::string> served;
  for (const auto& r : report)
    if (r.state == EntryState::kHit) {
      ++s.hits;
      served.insert(r.source_name);
    }
  for (const auto& r : report)
    if (r.state == EntryState::kMiss && r.reason != MissReason::kCacheDisabled &&
        !served.count(r.source_name))
      ++s.misses[r.reason];
  return s;
}

std::string CacheMissLine(const CacheSummary& s, std::string_view model_path,
                          std::string_view extension_error) {
  const std::string model = model_path.empty() ? "MODEL" : std::string(model_path);
  const std::string hint = "see `vtensor inspect " + model + " --cache`";
  if (!extension_error.empty())
    return "vtensor: warning: " + model + ": compiled tensors ignored (" +
           std::string(extension_error) + "); every weight was packed at load; " + hint;
  if (s.missed() == 0 && s.plan_miss == MissReason::kNone) return "";
  std::string what;
  if (s.missed() > 0) {
    // Codes in MissReason order (std::map keeps it), one count per code.
    std::vector<std::pair<std::string, size_t>> codes;
    for (const auto& [reason, count] : s.misses) {
      const std::string code = MissReasonCode(reason);
      auto it = std::find_if(codes.begin(), codes.end(), [&](const auto& c) { return c.first == code; });
      if (it != codes.end()) it->second += count;
      else codes.emplace_back(code, count);
    }
    std::string counts;
    for (const auto& [code, count] : codes)
      counts += (counts.empty() ? "" : ", ") + code + " " + std::to_string(count);
    what = std::to_string(s.missed()) + " of " + std::to_string(s.entries) +
           " compiled tensors not used (" + counts + "); their weights were packed at load; ";
  }
  if (s.plan_miss != MissReason::kNone)
    what += std::string("the session plan was not used (") + MissReasonCode(s.plan_miss) +
            "); the graph passes ran at load; ";
  return "vtensor: warning: " + model + ": " + what + hint;
}

}  // namespace vt
