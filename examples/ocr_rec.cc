// vtensor-ocr: text-line recognition with a PaddleOCR recognition model (PP-OCRv4 rec).
//
//   vtensor-ocr MODEL INPUT_PB KEYS [--runs N] [--expect TEXT]
//
// INPUT_PB is the preprocessed line image as an ONNX TensorProto (float32 [1,3,48,W], the
// PaddleOCR normalisation already applied), KEYS the model's dictionary (ppocr_keys_v1.txt).
// Runs the model once as a warmup, then N timed runs on one thread, decodes the output with
// CTC greedy decoding and prints the text and the median time per inference.
// Exit status: 0 ok, 1 the text differs from --expect, 2 any error.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "ctc_greedy.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/runtime/session.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

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

int Main(const Args& a) {
  auto keys = vt::ocr::LoadCtcKeys(a.keys);
  if (!keys.ok()) return Fail(keys.status());

  // Recognition timings are quoted single-threaded so that they compare across machines.
  vt::SessionOptions so;
  so.threads = 1;
  auto t0 = Clock::now();
  auto sess = vt::Session::Load(a.model, so);
  double create_ms = Ms(Clock::now() - t0);
  if (!sess.ok()) return Fail(sess.status());
  const vt::Session& s = **sess;
  if (s.inputs().size() != 1 || s.outputs().size() != 1)
    return Fail(vt::InvalidArgument(a.model + ": expected a recognition model with one input and "
                                    "one output, got " + std::to_string(s.inputs().size()) +
                                    " and " + std::to_string(s.outputs().size())));

  auto input = vt::LoadValueFile(a.input, s.inputs()[0]->spec.type());
  if (!input.ok()) return Fail(input.status());
  std::vector<vt::Value> inputs{std::move(*input)};

  // The warmup run also produces the output we decode: every run sees the same input.
  auto out = s.Run(inputs);
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
  fmt::print("input: {} {}\n", s.inputs()[0]->name, Describe(inputs[0]));
  fmt::print("text: {}\n", text->text);
  fmt::print("confidence: {:.4f}\n", text->confidence);
  fmt::print("session creation: {:.1f} ms\n", create_ms);
  fmt::print("time per inference: {:.2f} ms (median of {} runs after 1 warmup, 1 thread)\n",
             times[times.size() / 2], times.size());
  if (a.expect && text->text != *a.expect) {
    fmt::print(stderr, "mismatch: expected \"{}\", recognised \"{}\"\n", *a.expect, text->text);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vtensor-ocr: PaddleOCR text-line recognition on vtensor"};
  Args a;
  app.add_option("model", a.model, "recognition model (ch_PP-OCRv4_rec_infer)")->required();
  app.add_option("input", a.input, "input tensor file (TensorProto, float32 [1,3,48,W])")
      ->required();
  app.add_option("keys", a.keys, "key file (ppocr_keys_v1.txt)")->required();
  app.add_option("--runs", a.runs, "timed runs after one warmup (default 5)")
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
  return Main(a);
}
