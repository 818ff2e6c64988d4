// `vtensor bench MODEL [input flags] [--runs N] [--warmup W] [--threads T]`: session creation,
// the first run after it (timed on its own: lazy work shows there, see docs/benchmarks.md), W
// untimed warmup runs, then N timed runs (median = element N/2 of the sorted times; p50, p90,
// p99 by nearest rank; min, mean),
// each around Session::Run alone. Inputs as `vtensor run` makes them (tools/input_flags.h).
// --profile-ops FILE / --top K time every node of the timed runs (exec/op_profile.h): the
// timed figures then include that bookkeeping (two clock reads and the shapes per node).
// first_result_ms is process start to the first run's outputs (tools/process_clock.h), the
// figure scripts/compare_ort.sh sets beside ONNX Runtime's; first_result_cpu_ms is the process's
// CPU time at that point (every thread, from exec). first_run_cpu_ms and median_cpu_ms
// are the calling thread's CPU time (of the first run; median per timed run): at --threads 1 it leaves out the time other processes held
// the core, which the wall-clock figures include on a shared machine. first_run_page_faults and
// run_page_faults count the process's page faults (minor and major) in the first run and in all
// timed runs together; first_run_sys_ms is the kernel's share of first_run_cpu_ms (page faults,
// zeroing fresh pages, system calls) and first_run_fresh_mib the host memory it touched
// (base/host_memory.h: fresh memory, whose first touch the system time pays);
// first_run_peak_live_mib is the first run's peak of live arena bytes above those live before it
// (the buffers live at once: what the arena's placement cannot go below). With --top K the first run is profiled too and a second
// table says which op types took longer in it than in the timed runs (tools/op_trace.h);
// --profile-first FILE writes the first run's per-node trace.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "tools/commands.h"
#include "tools/json_types.h"
#include "tools/op_trace.h"
#include "tools/process_clock.h"
#include "tools/test_data.h"
#include "vtensor/base/host_memory.h"

namespace vt::cli {

namespace {
// --json form of --top: [{"op_type", "total_ms", "count", "percent"}] (empty without --top).
nlohmann::json TopJson(const OpProfile& profile, int k, double run_ms) {
  nlohmann::json out = nlohmann::json::array();
  if (k <= 0) return out;
  for (const OpTypeTotal& t : SlowestOpTypes(profile.events(), k))
    out.push_back({{"op_type", t.op_type}, {"total_ms", t.total_ms}, {"count", t.count},
                   {"percent", run_ms > 0 ? 100.0 * t.total_ms / run_ms : 0.0}});
  return out;
}
// --json form of the first-run table: [{"op_type", "first_ms", "steady_ms", "count"}].
nlohmann::json FirstRunJson(const OpProfile& first, const OpProfile& timed, int runs, int k) {
  nlohmann::json out = nlohmann::json::array();
  if (k <= 0) return out;
  for (const OpTypeFirstRun& t : FirstRunOpTypes(first.events(), timed.events(), runs, k))
    out.push_back({{"op_type", t.op_type}, {"first_ms", t.first_ms}, {"steady_ms", t.steady_ms},
                   {"count", t.count}});
  return out;
}
}  // namespace

int BenchCommand(const BenchArgs& a) {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  auto fail = [](const Status& st) {
    fmt::print(stderr, "error: {}\n", st.message());
    return 2;
  };
  auto so = MakeSessionOptions(a.session, a.threads);
  if (!so.ok()) return fail(so.status());
  auto t0 = Clock::now();
  auto s = Session::Load(a.model, *so);
  auto t1 = Clock::now();
  if (!s.ok()) return fail(s.status());
  ReportLoad(a.session, **s);
  auto inputs = MakeInputs(**s, a.inputs);
  if (!inputs.ok()) return fail(inputs.status());
  // --top / --profile-first: the first run records its nodes as well.
  OpProfile first_profile;
  OpProfile* first_prof = a.top > 0 || !a.profile_first.empty() ? &first_profile : nullptr;
  ResetHostMemoryPeak();
  const HostMemoryStats mem0 = GetHostMemoryStats();
  const uint64_t touched0 = mem0.touched_bytes;
  const int64_t faults0 = PageFaults();
  const double fc = ThreadCpuMs(), fs = ThreadSysMs();
  const auto f0 = Clock::now();
  if (auto r = (*s)->Run(*inputs, first_prof); !r.ok()) return fail(r.status());
  const double first_ms = ms(Clock::now() - f0);
  const double first_cpu_ms = ThreadCpuMs() - fc, first_sys_ms = ThreadSysMs() - fs;
  const int64_t first_faults = PageFaults() - faults0;
  const HostMemoryStats mem1 = GetHostMemoryStats();
  const double first_fresh_mib = static_cast<double>(mem1.touched_bytes - touched0) / (1 << 20);
  const double first_peak_live_mib =
      static_cast<double>(mem1.peak_live_bytes - mem0.live_bytes) / (1 << 20);
  const char* start_clock = "";
  const double first_result_ms = MsSinceProcessStart(&start_clock);
  const double first_result_cpu_ms = ProcessCpuMs();
  for (int i = 0; i < a.warmup; ++i)
    if (auto r = (*s)->Run(*inputs); !r.ok()) return fail(r.status());
  std::vector<double> times, cpu;
  // --profile-ops / --top: the timed runs record one event per node (exec/op_profile.h).
  OpProfile profile;
  OpProfile* prof = a.profile_ops.empty() && a.top <= 0 ? nullptr : &profile;
  const int64_t faults1 = PageFaults();
  for (int i = 0; i < std::max(1, a.runs); ++i) {
    const double c = ThreadCpuMs();
    auto b = Clock::now();
    auto r = (*s)->Run(*inputs, prof);
    auto e = Clock::now();
    cpu.push_back(ThreadCpuMs() - c);
    if (!r.ok()) return fail(r.status());
    times.push_back(ms(e - b));
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu.begin(), cpu.end());
  // Nearest-rank percentile: the smallest time with at least q of the runs at or below it.
  auto pct = [&](double q) {
    const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(times.size())));
    return times[std::max<size_t>(rank, 1) - 1];
  };
  double sum = 0;
  for (double t : times) sum += t;
  const double median = times[times.size() / 2], mean = sum / static_cast<double>(times.size());
  if (!a.profile_ops.empty())
    if (Status st = WriteChromeTrace(profile.events(), a.profile_ops); !st.ok()) return fail(st);
  if (!a.profile_first.empty())
    if (Status st = WriteChromeTrace(first_profile.events(), a.profile_first); !st.ok())
      return fail(st);
  const int runs = static_cast<int>(times.size());
  if (a.json) {
    PrintJson({{"model", a.model}, {"threads", a.threads}, {"session_create_ms", ms(t1 - t0)},
               {"first_run_ms", first_ms}, {"first_result_ms", first_result_ms},
               {"first_result_cpu_ms", first_result_cpu_ms},
               {"start_clock", start_clock}, {"runs", times.size()}, {"median_ms", median},
               {"p50_ms", pct(0.5)}, {"p90_ms", pct(0.9)}, {"p99_ms", pct(0.99)},
               {"min_ms", times.front()}, {"mean_ms", mean}, {"first_run_cpu_ms", first_cpu_ms},
               {"median_cpu_ms", cpu[cpu.size() / 2]}, {"first_run_sys_ms", first_sys_ms},
               {"first_run_fresh_mib", first_fresh_mib},
               {"first_run_peak_live_mib", first_peak_live_mib},
               {"first_run_page_faults", first_faults}, {"run_page_faults", PageFaults() - faults1},
               {"top_op_types", TopJson(profile, a.top, sum)},
               {"first_run_op_types", FirstRunJson(first_profile, profile, runs, a.top)}});
    return 0;
  }
  fmt::print("model: {}\nthreads: {}\nsession_create_ms: {:.3f}\nfirst_run_ms: {:.4f}\n"
             "first_result_ms: {:.3f}\nfirst_result_cpu_ms: {:.3f}\nstart_clock: {}\nruns: {}\n"
             "median_ms: {:.4f}\n"
             "p50_ms: {:.4f}\np90_ms: {:.4f}\np99_ms: {:.4f}\nmin_ms: {:.4f}\nmean_ms: {:.4f}\n"
             "first_run_cpu_ms: {:.4f}\nmedian_cpu_ms: {:.4f}\nfirst_run_sys_ms: {:.4f}\n"
             "first_run_fresh_mib: {:.2f}\nfirst_run_peak_live_mib: {:.2f}\n"
             "first_run_page_faults: {}\nrun_page_faults: {}\n",
             a.model, a.threads, ms(t1 - t0), first_ms, first_result_ms, first_result_cpu_ms,
             start_clock, times.size(),
             median, pct(0.5), pct(0.9), pct(0.99), times.front(), mean, first_cpu_ms,
             cpu[cpu.size() / 2], first_sys_ms, first_fresh_mib, first_peak_live_mib, first_faults,
             PageFaults() - faults1);
  if (a.top > 0) {
    fmt::print("{}", FormatTopOpTypes(profile.events(), a.top, runs, sum));
    fmt::print("{}", FormatFirstRunOpTypes(first_profile.events(), profile.events(), runs, a.top,
                                           first_ms));
  }
  return 0;
}

}  // namespace vt::cli
