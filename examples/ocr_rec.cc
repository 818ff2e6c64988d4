// vtensor-ocr: text-line recognition with a PaddleOCR recognition model (PP-OCRv4 rec).
//
//   vtensor-ocr MODEL INPUT_PB KEYS [--runs N] [--expect TEXT]
//
// INPUT_PB is the preprocessed line image as an ONNX TensorProto (float32 [1,3,48,W], the
// PaddleOCR normalisation already applied), KEYS the model's dictionary (ppocr_keys_v1.txt).
// Runs the model once (the first result, decoded with CTC greedy decoding), then N timed runs on
// one thread, and prints the text, session-ready time (Session::Load), time to first result
// from process start, and the median time per inference. For a compiled model (`vtensor
// compile`) it also says how many compiled tensors the session used and whether their payloads
// were verified in this load (docs/compiled-tensors.md).
//
// Time to first result counts from VT_SPAWN_REALTIME when the launching shell sets it (bash:
// `VT_SPAWN_REALTIME=$EPOCHREALTIME vtensor-ocr ...`, the CLOCK_REALTIME seconds just before
// exec, so exec and dynamic loading count), else from the start of main().
// Exit status: 0 ok, 1 the text differs from --expect, 2 any error.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "ctc_greedy.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/runtime/session.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// CLOCK_REALTIME seconds of VT_SPAWN_REALTIME (a '.' or the locale's ',' before the fraction);
// nullopt when unset or not a number.
std::optional<double> SpawnRealtime() {
  const char* env = std::getenv("VT_SPAWN_REALTIME");
  if (env == nullptr) return std::nullopt;
  std::string text(env);
  std::replace(text.begin(), text.end(), ',', '.');
  char* end = nullptr;
  double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return seconds;
}

double RealtimeSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// "13 of 13 compiled tensors and the session plan used, payloads verified in this load" for a
// compiled model; "" for a model without compiled tensors. Misses are named by reason; the
// session also reports them on stderr (Session::Load's cache warning).
std::string CompiledLine(const vt::Session& s) {
  vt::CacheSummary c = s.cache_summary();
  if (c.entries == 0) return "";
  size_t verified = 0, memo = 0;
  for (const vt::CacheEntryReport& r : s.cache_report()) {
    verified += r.state == vt::EntryState::kHit && r.verified ? 1 : 0;
    memo += r.state == vt::EntryState::kHit && r.memo ? 1 : 0;
  }
  std::string line = std::to_string(c.hits) + " of " + std::to_string(c.entries) +
                     " compiled tensors";
  if (s.plan_report().state == vt::EntryState::kHit) line += " and the session plan";
  line += " used";
  for (const auto& [reason, count] : c.misses)
    line += fmt::format(", {} MISS({})", count, vt::MissReasonCode(reason));
  if (verified > 0) line += ", payloads verified in this load (later loads skip this)";
  else if (memo > 0) line += ", payloads verified by an earlier load (verification memo)";
  return line;
}

// "float32[1,3,48,320]" for a tensor.
std::string Describe(const vt::Value& v) {
  if (!v.is_tensor()) return v.is_sequence() ? "a sequence" : "an empty optional";
  return std::string(vt::DTypeName(v.tensor().dtype())) + vt::ShapeToString(v.tensor().shape());
}

struct Args {
  std::string model, input, keys;
  int runs = 5;
  std::optional<std::string> expect;
};

int Fail(const vt::Status& st) {
  fmt::print(stderr, "error: {}\n", st.message());
  return 2;
}

int Main(const Args& a, Clock::time_point main_start) {
  const std::optional<double> spawn = SpawnRealtime();
  auto keys = vt::ocr::LoadCtcKeys(a.keys);
  if (!keys.ok()) return Fail(keys.status());

  // Recognition timings are quoted single-threaded so that they compare across machines.
  vt::SessionOptions so;
  so.threads = 1;
  auto t0 = Clock::now();
  auto sess = vt::Session::Load(a.model, so);
  const double ready_ms = Ms(Clock::now() - t0);
  if (!sess.ok()) return Fail(sess.status());
  const vt::Session& s = **sess;
  if (s.inputs().size() != 1 || s.outputs().size() != 1)
    return Fail(vt::InvalidArgument(a.model + ": expected a recognition model with one input and "
                                    "one output, got " + std::to_string(s.inputs().size()) +
                                    " and " + std::to_string(s.outputs().size())));

  auto input = vt::LoadValueFile(a.input, s.inputs()[0]->spec.type());
  if (!input.ok()) return Fail(input.status());
  std::vector<vt::Value> inputs{std::move(*input)};

  // The first run also produces the output we decode: every run sees the same input.
  auto out = s.Run(inputs);
  const double first_result_ms =
      spawn ? (RealtimeSeconds() - *spawn) * 1e3 : Ms(Clock::now() - main_start);
  if (!out.ok()) return Fail(out.status());
  std::vector<double> times;
  for (int i = 0; i < a.runs; ++i) {
    auto b = Clock::now();
    auto r = s.Run(inputs);
    times.push_back(Ms(Clock::now() - b));
    if (!r.ok()) return Fail(r.status());
  }
  std::sort(times.begin(), times.end());

  const vt::Value& v = (*out)[0];
  if (!v.is_tensor() || v.tensor().dtype() != vt::DType::kFloat32 || v.tensor().rank() != 3 ||
      v.tensor().dim(0) != 1)
    return Fail(vt::InvalidArgument("output '" + s.outputs()[0].name + "' is " +
                                    Describe(v) + ", expected float32[1,T,C]"));
  vt::Tensor probs = v.tensor().Contiguous();
  auto text = vt::ocr::CtcGreedyDecode(probs.data<float>(), probs.dim(1), probs.dim(2), *keys);
  if (!text.ok()) return Fail(text.status());

  fmt::print("model: {}\n", a.model);
  if (std::string compiled = CompiledLine(s); !compiled.empty())
    fmt::print("compiled model: {}\n", compiled);
  fmt::print("input: {} {}\n", s.inputs()[0]->name, Describe(inputs[0]));
  fmt::print("text: {}\n", text->text);
  fmt::print("confidence: {:.4f}\n", text->confidence);
  fmt::print("session ready: {:.1f} ms\n", ready_ms);
  fmt::print("first result: {:.1f} ms from {}\n", first_result_ms,
             spawn ? "process start" : "the start of main()");
  fmt::print("time per inference: {:.2f} ms (median of {} runs after the first, 1 thread)\n",
             times[times.size() / 2], times.size());
  if (a.expect && text->text != *a.expect) {
    fmt::print(stderr, "mismatch: expected \"{}\", recognised \"{}\"\n", *a.expect, text->text);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Clock::time_point main_start = Clock::now();
  CLI::App app{"vtensor-ocr: PaddleOCR text-line recognition on vtensor"};
  Args a;
  app.add_option("model", a.model, "recognition model (ch_PP-OCRv4_rec_infer)")->required();
  app.add_option("input", a.input, "input tensor file (TensorProto, float32 [1,3,48,W])")
      ->required();
  app.add_option("keys", a.keys, "key file (ppocr_keys_v1.txt)")->required();
  app.add_option("--runs", a.runs, "timed runs after the first (default 5)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--expect", a.expect, "exit 1 unless the recognised text equals this");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  return Main(a, main_start);
}
