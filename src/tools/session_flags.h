// CLI flags shared by the commands that create a session (run, bench, inspect --cache,
// bench-load): compiled-tensor cache use and verification.
#pragma once

#include <string>

#include "vtensor/base/status.h"
#include "vtensor/runtime/session.h"

namespace CLI {
class App;
}

namespace vt::cli {

struct SessionFlags {
  std::string verify = "always";  // always | memo | never
  std::string profile = "exact";  // exact | compact
  std::string arch = "native";    // kernel architecture: native | x86_64-avx512 | ...
  bool no_cache = false;          // ignore compiled entries
  bool explain = false;           // print every weight decision and each entry's HIT/MISS
  bool quiet = false;             // no cache warning line on stderr (forms/cache_summary.h)
};

// Registers --verify, --profile, --arch, --no-cache, --explain, --quiet on `cmd`.
void AddSessionFlags(CLI::App* cmd, SessionFlags* f);
// Errors: InvalidArgument naming the flag for an unknown value or an ISA this CPU lacks.
Expected<SessionOptions> MakeSessionOptions(const SessionFlags& f, int threads);
// One line per compiled entry: "entry I SOURCE ARCH TYPE: HIT" or "...: MISS(reason) detail".
void PrintCacheReport(const Session& s, FILE* out);
// The weight decisions (candidates, rejections, outcome) then the cache report.
void PrintExplain(const Session& s, FILE* out);

}  // namespace vt::cli
