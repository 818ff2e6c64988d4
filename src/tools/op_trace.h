// Output of per-node profiles (exec/op_profile.h): the Chrome trace event format that
// chrome://tracing and Perfetto open (`--profile-ops FILE`), and the slowest op types
// (`bench --top K`).
#pragma once

#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/exec/op_profile.h"

namespace vt::cli {

// {"traceEvents": [...], "displayTimeUnit": "ms"}: one complete event ("ph": "X") per node run,
// name = node name, cat = op type, ts/dur in microseconds, tid = thread id, args = op type,
// depth, self time and the input/output dtypes and shapes. Written atomically.
// Errors: IoError naming `path` and the reason.
Status WriteChromeTrace(const std::vector<OpEvent>& events, const std::string& path);

struct OpTypeTotal {
  std::string op_type;
  double total_ms = 0;  // sum of the events' self time
  int64_t count = 0;    // events
};
// Op types by total self time, slowest first (ties: by name); at most `k` (k <= 0: all).
std::vector<OpTypeTotal> SlowestOpTypes(const std::vector<OpEvent>& events, int k);
// The table `bench --top K` prints: per op type the total ms over `runs` runs, the count, and
// the share of `run_ms` (the summed wall time of those runs).
std::string FormatTopOpTypes(const std::vector<OpEvent>& events, int k, int runs, double run_ms);

// Where a first run's extra time went (`bench --top K`, docs/benchmarks.md "First run and page
// faults"): per op type, its self time in the first run against its mean self time per run
// over the `runs` timed runs.
struct OpTypeFirstRun {
  std::string op_type;
  double first_ms = 0;   // self time in the first run
  double steady_ms = 0;  // mean self time per timed run
  int64_t count = 0;     // events in the first run
};
// Op types by first_ms - steady_ms, largest first (ties: by name); at most `k` (k <= 0: all).
// Op types seen in only one of the two profiles count 0 ms in the other. runs >= 1.
std::vector<OpTypeFirstRun> FirstRunOpTypes(const std::vector<OpEvent>& first,
                                            const std::vector<OpEvent>& timed, int runs, int k);
// The table `bench --top K` prints after the timed runs' one: the first run's `first_run_ms`
// (wall time), what its nodes took above the timed runs' mean per op type, and the rest
// (the first run's time outside the nodes' self time).
std::string FormatFirstRunOpTypes(const std::vector<OpEvent>& first,
                                  const std::vector<OpEvent>& timed, int runs, int k,
                                  double first_run_ms);

}  // namespace vt::cli
