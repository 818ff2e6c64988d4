// `vtensor generate MODEL --prompt-len P --new-tokens N [--seed S] [--threads T] [--read-floor]`:
// greedy generation with a decoder in onnxruntime-genai form (tools/decoder_io.h), token ids
// only (no tokenizer): the prompt is PromptIds(seed, P, vocab); one prefill run produces the
// first new token, then N - 1 decode runs one token each, every present KV cache fed back as
// the next step's past (appended in place, no copy: docs/genai.md).
//
// Prints `key: value` lines: compiled_cache (hit / partial / miss / none, with the entry
// counts) and weights_packed_at_load, session_create_ms, prefill_ms (the prefill run and its
// argmax), first_token_ms (process start to the first new token: exec, loading, session
// creation and prefill; start_clock says how the start was taken, tools/process_clock.h),
// decode_median_ms / p90 / min / mean per token (building the feeds, the run, the argmax),
// prefill_cpu_ms and decode_median_cpu_ms (the calling thread's CPU time: robust to other
// processes on a shared machine, single thread only), decode_tokens_per_s (1000 / median), weight_bytes_per_token (WeightBytesPerToken) and
// weight_stream_gb_s (those bytes / the median step), with --read-floor the sequential read
// bandwidth of a buffer of that size (kernels/cpu/read_floor.h, median of 5 passes) and the
// ratio, file_mapped_mib and file_pmd_mapped_mib (after the last step: the resident MiB of the
// process's large read-only file mappings, the .vtpack and external data, and how many of them
// are mapped in 2 MiB pages; base/mapped_pages.h), then prompt_ids and generated_ids.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "kernels/cpu/read_floor.h"
#include "vtensor/base/mapped_pages.h"
#include "tools/commands.h"
#include "tools/decoder_io.h"
#include "tools/process_clock.h"

namespace vt::cli {
namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

int Fail(const Status& st) {
  fmt::print(stderr, "error: {}\n", st.message());
  return 2;
}

// "hit (N of N entries)", "partial (H of N entries hit)", "miss (0 of N entries hit)" or "none".
std::string CacheSummary(const Session& s) {
  const auto& r = s.cache_report();
  if (r.empty()) return s.extension_error().empty() ? "none (no compiled tensors)" : "miss (unreadable extension)";
  const size_t hits = std::count_if(r.begin(), r.end(), [](const CacheEntryReport& e) {
    return e.state == EntryState::kHit;
  });
  if (hits == r.size()) return fmt::format("hit ({} of {} entries)", hits, r.size());
  return fmt::format("{} ({} of {} entries hit)", hits == 0 ? "miss" : "partial", hits, r.size());
}

size_t PackedAtLoad(const Session& s) {
  return std::count_if(s.weight_decisions().begin(), s.weight_decisions().end(),
                       [](const WeightDecision& d) { return d.outcome.rfind("packed at load", 0) == 0; });
}

// GB/s of a sequential read of `bytes` (median of 5 passes after one that faults the buffer
// in); NaN without AVX-512F (the floor's kernel).
double ReadFloorGbs(int64_t bytes) {
  if (!__builtin_cpu_supports("avx512f") || bytes < 64) return NAN;
  const size_t words = static_cast<size_t>(bytes) / 8 / 32 * 32;
  std::unique_ptr<uint64_t, decltype(&std::free)> buf(
      static_cast<uint64_t*>(std::aligned_alloc(64, words * 8)), &std::free);
  if (!buf) return NAN;
  std::memset(buf.get(), 1, words * 8);
  volatile uint64_t sink = 0;
  std::vector<double> gbs;
  for (int pass = 0; pass < 5; ++pass) {
    const auto t0 = Clock::now();
    sink = sink + vt::kernels::ReadFloorSumAvx512(buf.get(), words);
    gbs.push_back(static_cast<double>(words * 8) / 1e6 / Ms(Clock::now() - t0));
  }
  std::sort(gbs.begin(), gbs.end());
  return gbs[gbs.size() / 2];
}

struct StepTimes {
  std::vector<double> ms, cpu_ms;  // wall and thread CPU time per step
  double Median() const { return ms.empty() ? NAN : ms[ms.size() / 2]; }
  void Sort() {
    std::sort(ms.begin(), ms.end());
    std::sort(cpu_ms.begin(), cpu_ms.end());
  }
};

void PrintDecode(StepTimes t, int64_t weight_bytes, bool read_floor) {
  t.Sort();
  double mean = 0;
  for (double v : t.ms) mean += v;
  mean = t.ms.empty() ? NAN : mean / static_cast<double>(t.ms.size());
  const size_t p90 = t.ms.empty() ? 0 : static_cast<size_t>(std::ceil(0.9 * static_cast<double>(t.ms.size()))) - 1;
  const double med = t.Median();
  fmt::print("decode_steps: {}\ndecode_median_ms: {:.3f}\ndecode_p90_ms: {:.3f}\ndecode_min_ms: {:.3f}\n"
             "decode_mean_ms: {:.3f}\ndecode_median_cpu_ms: {:.3f}\ndecode_tokens_per_s: {:.3f}\n"
             "weight_bytes_per_token: {}\nweight_stream_gb_s: {:.3f}\n",
             t.ms.size(), med, t.ms.empty() ? NAN : t.ms[p90], t.ms.empty() ? NAN : t.ms.front(), mean,
             t.cpu_ms.empty() ? NAN : t.cpu_ms[t.cpu_ms.size() / 2], 1000.0 / med, weight_bytes,
             static_cast<double>(weight_bytes) / 1e6 / med);
  if (!read_floor) return;
  const double floor = ReadFloorGbs(weight_bytes);
  fmt::print("read_floor_gb_s: {:.3f}\nweight_stream_vs_read_floor: {:.3f}\n", floor,
             static_cast<double>(weight_bytes) / 1e6 / med / floor);
}

}  // namespace

int GenerateCommand(const GenerateArgs& a) {
  auto so = MakeSessionOptions(a.session, a.threads);
  if (!so.ok()) return Fail(so.status());
  const auto t0 = Clock::now();
  auto s = Session::Load(a.model, *so);
  const double create_ms = Ms(Clock::now() - t0);
  if (!s.ok()) return Fail(s.status());
  Session& session = **s;
  ReportLoad(a.session, session);
  auto io = DecoderIo::Create(session, a.vocab);
  if (!io.ok()) return Fail(io.status());
  const std::vector<int64_t> prompt = PromptIds(a.seed, a.prompt_len, io->vocab());
  auto feeds = io->PrefillFeeds(prompt);
  if (!feeds.ok()) return Fail(feeds.status());

  const auto p0 = Clock::now();
  const double p0_cpu = ThreadCpuMs();
  auto out = session.Run(*feeds);
  if (!out.ok()) return Fail(out.status());
  auto next = io->Argmax(*out);
  if (!next.ok()) return Fail(next.status());
  const double prefill_ms = Ms(Clock::now() - p0), prefill_cpu_ms = ThreadCpuMs() - p0_cpu;
  const char* start_clock = "";
  const double first_token_ms = MsSinceProcessStart(&start_clock);

  std::vector<int64_t> generated = {*next};
  StepTimes steps;
  feeds->clear();
  for (int64_t k = 1; k < a.new_tokens; ++k) {
    const auto b = Clock::now();
    const double b_cpu = ThreadCpuMs();
    std::vector<Value> f = io->DecodeFeeds(generated.back(), a.prompt_len + k, *out);
    out->clear();  // the pasts now live in `f` alone, so their caches grow in place
    out = session.Run(f);
    if (!out.ok()) return Fail(out.status());
    next = io->Argmax(*out);
    if (!next.ok()) return Fail(next.status());
    steps.ms.push_back(Ms(Clock::now() - b));
    steps.cpu_ms.push_back(ThreadCpuMs() - b_cpu);
    generated.push_back(*next);
  }
  fmt::print("model: {}\nthreads: {}\ncompiled_cache: {}\nweights_packed_at_load: {}\n"
             "session_create_ms: {:.3f}\nprompt_tokens: {}\nprefill_ms: {:.3f}\nprefill_cpu_ms: {:.3f}\n"
             "first_token_ms: {:.3f}\nstart_clock: {}\n",
             a.model, a.threads, CacheSummary(session), PackedAtLoad(session), create_ms, prompt.size(),
             prefill_ms, prefill_cpu_ms, first_token_ms, start_clock);
  PrintDecode(steps, WeightBytesPerToken(session), a.read_floor);
  const FileMappingPages pages = ReadFileMappingPages();
  fmt::print("file_mapped_mib: {:.1f}\nfile_pmd_mapped_mib: {:.1f}\n",
             static_cast<double>(pages.rss_bytes) / (1 << 20),
             static_cast<double>(pages.pmd_mapped_bytes) / (1 << 20));
  fmt::print("prompt_ids: {}\ngenerated_ids: {}\n", fmt::join(prompt, " "), fmt::join(generated, " "));
  return 0;
}

}  // namespace vt::cli
