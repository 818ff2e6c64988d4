#include "tools/session_flags.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

namespace vt::cli {

void AddSessionFlags(CLI::App* cmd, SessionFlags* f) {
  cmd->add_option("--verify", f->verify,
                  "compiled-tensor verification: memo (default: hash once per file identity), always, never")
      ->check(CLI::IsMember({"always", "memo", "never"}));
  cmd->add_option("--profile", f->profile, "weight forms: exact (default, lossless) or compact")
      ->check(CLI::IsMember({"exact", "compact"}));
  cmd->add_option("--arch", f->arch,
                  "kernel architecture: native (default), x86_64-avx512, x86_64-avx2, "
                  "x86_64-baseline");
  cmd->add_flag("--no-cache", f->no_cache, "ignore compiled tensors (pack every weight)");
  cmd->add_flag("--explain", f->explain,
                "print each weight's form candidates, why each was rejected, HIT/MISS, and what "
                "kernels chose (microkernel row, KV cache layout)");
  cmd->add_flag("-v,--verbose", f->verbose,
                "load decisions on stderr: chosen weight forms, compiled entries hit/miss, kernels");
  cmd->add_flag("--quiet", f->quiet,
                "no warning on stderr when compiled tensors were not used (payload file missing "
                "or damaged, another profile or CPU)");
}

Expected<SessionOptions> MakeSessionOptions(const SessionFlags& f, int threads) {
  SessionOptions so;
  so.threads = threads;
  auto isa = IsaFromArchitecture(f.arch);
  if (!isa)
    return InvalidArgument("--arch '" + f.arch +
                           "': expected native, x86_64-avx512, x86_64-avx2 or x86_64-baseline");
  if (!IsaSupported(*isa))
    return InvalidArgument("--arch " + f.arch + ": this CPU does not support it");
  so.isa = *isa;
  auto profile = WeightProfileFromName(f.profile);
  if (!profile) return InvalidArgument("--profile '" + f.profile + "': expected exact or compact");
  so.profile = *profile;
  auto verify = VerifyPolicyFromName(f.verify);
  if (!verify) return InvalidArgument("--verify '" + f.verify + "': expected always, memo or never");
  so.cache.verify = *verify;
  so.cache.enabled = !f.no_cache;
  // --explain and -v print the whole report, which says more than the warning.
  if (f.quiet || f.explain || f.verbose) so.cache_warning = nullptr;
  return so;
}

void PrintCacheReport(const Session& s, FILE* out) {
  if (!s.extension_error().empty())
    fmt::print(out, "compiled tensors ignored: {}\n", s.extension_error());
  size_t hits = 0;
  for (const auto& r : s.cache_report()) {
    hits += r.state == EntryState::kHit;
    fmt::print(out, "entry {} {} {} {}: {}{}{}\n", r.index, r.source_name,
               r.architecture.empty() ? "-" : r.architecture,
               r.type_name.empty() ? "-" : r.type_name, EntryStateText(r),
               r.detail.empty() ? "" : "  " + r.detail,
               r.state == EntryState::kHit ? (r.memo ? "  (verified: memo)"
                                              : r.compared ? "  (verified: compared with a fresh pack)"
                                              : r.verified ? "  (verified)" : "  (not verified)")
                                           : "");
  }
  // The plan's line first: scripts read the compiled-tensor totals from the last line.
  const CacheEntryReport& p = s.plan_report();
  if (p.state == EntryState::kPending) {
    fmt::print(out, "session plan: none\n");
  } else {
    fmt::print(out, "session plan {} {} ({} bytes{}): {}{}{}\n", p.index, p.type_name,
               p.payload_bytes, p.location.empty() ? " inline" : " in " + p.location,
               EntryStateText(p), p.detail.empty() ? "" : "  " + p.detail,
               p.state == EntryState::kHit ? (p.memo ? "  (verified: memo)"
                                              : p.verified ? "  (verified)" : "  (not verified)")
                                           : "; the graph passes ran at load");
  }
  fmt::print(out, "compiled tensors: {} entries, {} hit, {} miss\n", s.cache_report().size(), hits,
             s.cache_report().size() - hits);
}

void PrintExplain(const Session& s, FILE* out) {
  for (const auto& d : s.weight_decisions()) {
    fmt::print(out, "weight {} ({}): {}\n", d.weight, d.node, d.outcome);
    for (const auto& c : d.candidates)
      fmt::print(out, "  {} {}{}\n", c.rejected.empty() ? "+" : "-", c.description,
                 c.rejected.empty() ? "" : ": rejected: " + c.rejected);
  }
  for (const auto& [node, note] : s.kernel_notes()) fmt::print(out, "node {}: {}\n", node, note);
  PrintCacheReport(s, out);
}

void PrintLoadDecisions(const Session& s, FILE* out) {
  for (const auto& d : s.weight_decisions()) {
    std::string chosen = "-";
    for (const auto& c : d.candidates)
      if (c.rejected.empty()) {
        chosen = c.description;
        break;
      }
    fmt::print(out, "load: weight {} ({}): {}: {}\n", d.weight, d.node, chosen, d.outcome);
  }
  for (const auto& [node, note] : s.kernel_notes()) fmt::print(out, "load: node {}: {}\n", node, note);
  if (!s.extension_error().empty())
    fmt::print(out, "load: compiled tensors ignored: {}\n", s.extension_error());
  size_t hits = 0;
  for (const auto& r : s.cache_report()) {
    hits += r.state == EntryState::kHit;
    fmt::print(out, "load: entry {} {} {}: {}{}\n", r.index, r.source_name,
               r.architecture.empty() ? "-" : r.architecture, EntryStateText(r),
               r.detail.empty() ? "" : "  " + r.detail);
  }
  if (const ReadAhead* ra = s.read_ahead())
    fmt::print(out, "load: {:.1f} MiB of weights read in place from mapped files: read ahead of "
               "the first run on a background thread (VTENSOR_READ_AHEAD=off turns it off)\n",
               static_cast<double>(ra->bytes_total()) / (1 << 20));
  fmt::print(out, "load: {} weights decided, {} compiled entries: {} hit, {} miss\n",
             s.weight_decisions().size(), s.cache_report().size(), hits,
             s.cache_report().size() - hits);
}

void ReportLoad(const SessionFlags& f, const Session& s) {
  if (f.explain) PrintExplain(s, stdout);
  if (f.verbose) PrintLoadDecisions(s, stderr);
}

}  // namespace vt::cli
