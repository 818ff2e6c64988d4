#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "tools/commands.h"
#include "tools/compile_model.h"
#include "tools/lossy_report.h"

namespace vt::cli {

namespace {

// With --data: each output's max abs difference from the source model, on stdout. The warning
// for lossy entries (unless --quiet), with those differences when measured.
int ReportDifference(const CompileArgs& a, WeightProfile profile, const CompileModelSummary& sum) {
  std::vector<OutputDifference> diffs;
  if (!a.data.empty()) {
    auto d = MeasureCompiledDifference(a.model, a.out, profile, a.data);
    if (!d.ok()) {
      fmt::print(stderr, "error: compile --data {}: {}\n", a.data, d.status().message());
      return 2;
    }
    diffs = std::move(*d);
    for (const auto& x : diffs)
      fmt::print("{}: max abs difference from the source model on {}: {:.3g}\n", x.output, a.data,
                 x.max_abs_diff);
  }
  if (!a.quiet) {
    std::string line = LossyCompileWarning(a.out, sum, diffs, a.data);
    if (!line.empty()) fmt::print(stderr, "{}\n", line);
  }
  return 0;
}

}  // namespace

int CompileCommand(const CompileArgs& a) {
  auto opts = CompileOptionsFromNames(a.devices, a.profile, a.payload, a.algo);
  if (!opts.ok()) {
    fmt::print(stderr, "error: {}\n", opts.status().message());
    return 2;
  }
  if (!a.data.empty() && !std::filesystem::is_directory(a.data)) {
    fmt::print(stderr, "error: compile --data '{}': not a directory (a test data set holds "
               "input_N.pb)\n", a.data);
    return 2;
  }
  CompileModelOptions o = std::move(*opts);
  const bool tty = a.progress && ::isatty(STDERR_FILENO);
  if (tty)
    o.progress = [](size_t done, size_t total, uint64_t bytes) {
      constexpr int kWidth = 30;
      const int fill = total == 0 ? kWidth : static_cast<int>(done * kWidth / total);
      fmt::print(stderr, "\r[{}{}] {}/{} weights, {:.1f} MiB", std::string(fill, '#'),
                 std::string(kWidth - fill, ' '), done, total,
                 static_cast<double>(bytes) / (1 << 20));
      std::fflush(stderr);
    };
  const auto t0 = std::chrono::steady_clock::now();
  CompileModelSummary sum;
  Status st = CompileModel(a.model, a.out, o, &sum);
  if (tty) fmt::print(stderr, "\n");
  if (!st.ok()) {
    fmt::print(stderr, "error: {}\n", st.message());
    return 2;
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("wrote {}: {} compiled tensors and {} session plan{} ({} device{}, profile {}), "
             "{:.1f} MiB of payload{}{}, {:.0f} ms\n",
             a.out, sum.entries, sum.plans, sum.plans == 1 ? "" : "s", o.devices.size(), o.devices.size() == 1 ? "" : "s", a.profile,
             static_cast<double>(sum.payload_bytes) / (1 << 20),
             sum.payload_file.empty() ? " inline" : " in " + sum.payload_file,
             sum.kept_entries
                 ? fmt::format(", {} entries of other devices or profiles kept", sum.kept_entries)
                              : "",
             ms);
  return ReportDifference(a, o.profile, sum);
}

}  // namespace vt::cli
