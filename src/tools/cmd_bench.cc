#include <fmt/core.h>

#include <algorithm>
#include <chrono>

#include "tools/commands.h"
#include "tools/test_data.h"

namespace vt::cli {

int BenchCommand(const BenchArgs& a) {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  auto so = MakeSessionOptions(a.session, a.threads);
  if (!so.ok()) {
    fmt::print(stderr, "error: {}\n", so.status().message());
    return 2;
  }
  auto t0 = Clock::now();
  auto s = Session::Load(a.model, *so);
  auto t1 = Clock::now();
  if (!s.ok()) {
    fmt::print(stderr, "error: {}\n", s.status().message());
    return 2;
  }
  if (a.session.explain) PrintExplain(**s, stdout);
  auto inputs = a.data_dir.empty() ? ZeroInputs(**s) : LoadInputs(**s, a.data_dir);
  if (!inputs.ok()) {
    fmt::print(stderr, "error: {}\n", inputs.status().message());
    return 2;
  }
  for (int i = 0; i < a.warmup; ++i) {
    auto r = (*s)->Run(*inputs);
    if (!r.ok()) {
      fmt::print(stderr, "error: {}\n", r.status().message());
      return 2;
    }
  }
  std::vector<double> times;
  for (int i = 0; i < std::max(1, a.runs); ++i) {
    auto b = Clock::now();
    auto r = (*s)->Run(*inputs);
    auto e = Clock::now();
    if (!r.ok()) {
      fmt::print(stderr, "error: {}\n", r.status().message());
      return 2;
    }
    times.push_back(ms(e - b));
  }
  std::sort(times.begin(), times.end());
  fmt::print("model: {}\nthreads: {}\nsession_create_ms: {:.3f}\nruns: {}\nmedian_ms: {:.4f}\nmin_ms: {:.4f}\n",
             a.model, a.threads, ms(t1 - t0), times.size(), times[times.size() / 2], times.front());
  return 0;
}

}  // namespace vt::cli
