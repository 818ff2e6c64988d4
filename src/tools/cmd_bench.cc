// `vtensor bench MODEL [--data DIR] [--runs N] [--warmup W] [--threads T]`: session creation,
// the first run after it (timed on its own: lazy work shows there, see docs/benchmarks.md), W
// untimed warmup runs, then N timed runs (median, p90, min), each around Session::Run alone.
// first_result_ms is process start to the first run's outputs (tools/process_clock.h), the
// figure scripts/compare_ort.sh sets beside ONNX Runtime's. first_run_cpu_ms and median_cpu_ms
// are the calling thread's CPU time (of the first run; median per timed run): at --threads 1 it leaves out the time other processes held
// the core, which the wall-clock figures include on a shared machine. first_run_page_faults and
// run_page_faults count the process's page faults (minor and major) in the first run and in all
// timed runs together.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "tools/commands.h"
#include "tools/process_clock.h"
#include "tools/test_data.h"

namespace vt::cli {

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
  if (a.session.explain) PrintExplain(**s, stdout);
  auto inputs = a.data_dir.empty() ? ZeroInputs(**s) : LoadInputs(**s, a.data_dir);
  if (!inputs.ok()) return fail(inputs.status());
  const int64_t faults0 = PageFaults();
  const double fc = ThreadCpuMs();
  const auto f0 = Clock::now();
  if (auto r = (*s)->Run(*inputs); !r.ok()) return fail(r.status());
  const double first_ms = ms(Clock::now() - f0);
  const double first_cpu_ms = ThreadCpuMs() - fc;
  const int64_t first_faults = PageFaults() - faults0;
  const char* start_clock = "";
  const double first_result_ms = MsSinceProcessStart(&start_clock);
  for (int i = 0; i < a.warmup; ++i)
    if (auto r = (*s)->Run(*inputs); !r.ok()) return fail(r.status());
  std::vector<double> times, cpu;
  const int64_t faults1 = PageFaults();
  for (int i = 0; i < std::max(1, a.runs); ++i) {
    const double c = ThreadCpuMs();
    auto b = Clock::now();
    auto r = (*s)->Run(*inputs);
    auto e = Clock::now();
    cpu.push_back(ThreadCpuMs() - c);
    if (!r.ok()) return fail(r.status());
    times.push_back(ms(e - b));
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu.begin(), cpu.end());
  const size_t p90 = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(times.size()))) - 1;
  fmt::print("model: {}\nthreads: {}\nsession_create_ms: {:.3f}\nfirst_run_ms: {:.4f}\n"
             "first_result_ms: {:.3f}\nstart_clock: {}\nruns: {}\nmedian_ms: {:.4f}\n"
             "p90_ms: {:.4f}\nmin_ms: {:.4f}\nfirst_run_cpu_ms: {:.4f}\nmedian_cpu_ms: {:.4f}\n"
             "first_run_page_faults: {}\nrun_page_faults: {}\n",
             a.model, a.threads, ms(t1 - t0), first_ms, first_result_ms, start_clock, times.size(),
             times[times.size() / 2], times[p90], times.front(), first_cpu_ms, cpu[cpu.size() / 2], first_faults,
             PageFaults() - faults1);
  return 0;
}

}  // namespace vt::cli
