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
  std::string verify = "memo";    // always | memo | never
  std::string profile = "exact";  // exact | compact
  std::string arch = "native";    // kernel architecture: native | x86_64-avx512 | ...
  bool no_cache = false;          // ignore compiled entries
  bool explain = false;           // print every weight decision and each entry's HIT/MISS
  bool verbose = false;           // -v: load decisions on stderr (PrintLoadDecisions)
  bool quiet = false;             // no cache warning line on stderr (forms/cache_summary.h)
};

// Registers --verify, --profile, --arch, --no-cache, --explain, -v/--verbose, --quiet on `cmd`.
void AddSessionFlags(CLI::App* cmd, SessionFlags* f);
// Errors: InvalidArgument naming the flag for an unknown value or an ISA this CPU lacks.
Expected<SessionOptions> MakeSessionOptions(const SessionFlags& f, int threads);
// One line per compiled entry: "entry I SOURCE ARCH TYPE: HIT" or "...: MISS(reason) detail".
void PrintCacheReport(const Session& s, FILE* out);
// The weight decisions (candidates, rejections, outcome) then the cache report.
void PrintExplain(const Session& s, FILE* out);
// -v: what loading decided, one "load: " line each: per weight the chosen form and the outcome
// (cache HIT or packed at load), the kernels' notes, each compiled entry's HIT/MISS(reason),
// and the totals. Shorter than --explain (no rejected candidates); meant for stderr.
void PrintLoadDecisions(const Session& s, FILE* out);
// --explain on stdout and -v on stderr, as `f` asks.
void ReportLoad(const SessionFlags& f, const Session& s);

}  // namespace vt::cli
