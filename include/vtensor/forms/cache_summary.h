// The compiled-tensor cache's outcome in one line (docs/compiled-tensors.md, "Visible cache
// state"). A compiled model whose payload file was not copied along, whose payload is damaged,
// or that was compiled for another profile or CPU still loads and computes the same results:
// every weight is packed at load instead. Without a word the user cannot tell that the cache
// did nothing, so a session reports such misses once, as this line.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "vtensor/forms/miss_reason.h"
#include "vtensor/forms/weight_cache.h"

namespace vt {

struct CacheSummary {
  size_t entries = 0;  // compiled entries in the model
  size_t hits = 0;     // entries whose payload the session uses
  // Misses that left a weight packed at load, by reason. Not counted: entries of a weight that
  // another entry served (entries for other CPUs or profiles beside the session's own), and
  // kCacheDisabled (the caller turned the cache off).
  std::map<MissReason, size_t> misses;
  // Why the model's session plan (docs/compiled-tensors.md, "Session plans") was not used, so
  // that the session ran its graph passes at load; kNone: no plan, a hit, or the cache off.
  MissReason plan_miss = MissReason::kNone;
  size_t missed() const;
};

// Summarises a session's cache report (Session::cache_report()).
CacheSummary SummarizeCache(const std::vector<CacheEntryReport>& report);

// The warning for `s`, naming `model_path` ("" for a model from memory, shown as MODEL), e.g.
//   vtensor: warning: m.onnx: 3 of 3 compiled tensors not used (payload-missing 3); their
//   weights were packed at load; see `vtensor inspect m.onnx --cache`
// Reason codes (MissReasonCode) in MissReason order, reasons sharing a code added up. A missed
// session plan adds "the session plan was not used (stale-graph); the graph passes ran at load".
// `extension_error` (the model's compiled-tensor fields could not be parsed) gives the line
// too. "" when there is nothing to report: no entries, or every weight served.
std::string CacheMissLine(const CacheSummary& s, std::string_view model_path,
                          std::string_view extension_error = {});

}  // namespace vt
