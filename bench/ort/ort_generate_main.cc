// vtensor-ort-generate: the greedy generation loop of `vtensor generate` (src/tools/cmd_generate.cc)
// run in ONNX Runtime through its C API, on a decoder in onnxruntime-genai form (input_ids,
// attention_mask, past_key_values.{i}.key / .value -> logits, present.{i}.key / .value), for
// speed and token comparisons (scripts/compare_generate.sh).
//
// usage: vtensor-ort-generate MODEL [--prompt-len P] [--new-tokens N] [--seed S]
//                              [--kv share|copy] [--max-length M]
//   --prompt-len P   prompt tokens (default 16), ids PromptIds(seed, P, vocab) as vtensor's
//   --new-tokens N   generated tokens (default 16): one from the prefill, then N - 1 decode steps
//   --kv share       (default) the KV cache as onnxruntime-genai keeps it on the CPU with
//                    past_present_share_buffer: one [1, kv_heads, M, head_size] buffer per past,
//                    bound through an IoBinding as both the past input and the present output,
//                    GroupQueryAttention writing each step's rows in place (M = --max-length,
//                    default prompt + new tokens)
//   --kv copy        each step's presents fed back as the next step's pasts (ORT allocates new
//                    presents and copies the past rows into them every step)
// Session: 1 intra-op thread, 1 inter-op thread, sequential execution, all graph
// optimizations, CPU execution provider.
//
// Prints `key: value` lines with the names `vtensor generate` prints: ort_version,
// session_create_ms, prompt_tokens, prefill_ms (the prefill run and its argmax), prefill_cpu_ms,
// first_token_ms (process start to the first new token; start_clock says how the start was
// taken), decode_steps, decode_median_ms / p90 / min / mean (feeds, run, argmax per token),
// decode_median_cpu_ms (thread CPU time),
// decode_tokens_per_s, vm_hwm_kb, prompt_ids, generated_ids. Exit 2 on a usage, load or run error.
#include <onnxruntime_c_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "process_stats.h"

namespace vt::ortbench {
namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

const OrtApi* g_ort = nullptr;

std::string Err(OrtStatus* s) {
  if (!s) return "";
  std::string m = g_ort->GetErrorMessage(s);
  g_ort->ReleaseStatus(s);
  return m.empty() ? "ONNX Runtime error" : m;
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "vtensor-ort-generate: %s\n", what.c_str());
  return 2;
}

// The prompt of `vtensor generate` (src/tools/decoder_io.h PromptIds): splitmix64's finalizer
// over a Weyl sequence of the seed.
uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
std::vector<int64_t> PromptIds(uint64_t seed, int64_t len, int64_t vocab) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < len; ++i)
    ids.push_back(static_cast<int64_t>(
        Mix64(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i + 1) * 0xD1B54A32D192ED03ull) %
        static_cast<uint64_t>(vocab)));
  return ids;
}

struct Args {
  std::string model;
  int64_t prompt_len = 16, new_tokens = 16, max_length = 0;
  uint64_t seed = 0;
  bool share = true;
};

bool ParseI64(const char* s, int64_t lo, int64_t* out) {
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > (int64_t{1} << 40)) return false;
  *out = v;
  return true;
}

std::string ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const bool has = i + 1 < argc;
    int64_t v = 0;
    if (k == "--prompt-len" && has) {
      if (!ParseI64(argv[++i], 1, &a->prompt_len)) return "--prompt-len needs an integer >= 1";
    } else if (k == "--new-tokens" && has) {
      if (!ParseI64(argv[++i], 1, &a->new_tokens)) return "--new-tokens needs an integer >= 1";
    } else if (k == "--max-length" && has) {
      if (!ParseI64(argv[++i], 1, &a->max_length)) return "--max-length needs an integer >= 1";
    } else if (k == "--seed" && has) {
      if (!ParseI64(argv[++i], 0, &v)) return "--seed needs an integer >= 0";
      a->seed = static_cast<uint64_t>(v);
    } else if (k == "--kv" && has) {
      const std::string m = argv[++i];
      if (m != "share" && m != "copy") return "--kv must be share or copy";
      a->share = m == "share";
    } else if (!k.empty() && k[0] != '-' && a->model.empty()) {
      a->model = k;
    } else {
      return "unknown or incomplete argument '" + k + "'";
    }
  }
  if (a->model.empty())
    return "usage: vtensor-ort-generate MODEL [--prompt-len P] [--new-tokens N] [--seed S] "
           "[--kv share|copy] [--max-length M]";
  if (a->max_length == 0) a->max_length = a->prompt_len + a->new_tokens;
  if (a->max_length < a->prompt_len + a->new_tokens - 1)
    return "--max-length is shorter than the prompt and the generated tokens";
  return "";
}

// Static dims of a session input or output (-1 where symbolic).
std::string Dims(OrtSession* s, bool input, size_t i, std::vector<int64_t>* dims) {
  OrtTypeInfo* ti = nullptr;
  std::string e = Err(input ? g_ort->SessionGetInputTypeInfo(s, i, &ti) : g_ort->SessionGetOutputTypeInfo(s, i, &ti));
  const OrtTensorTypeAndShapeInfo* info = nullptr;
  size_t n = 0;
  if (e.empty()) e = Err(g_ort->CastTypeInfoToTensorInfo(ti, &info));
  if (e.empty() && !info) e = "not a tensor";
  if (e.empty()) e = Err(g_ort->GetDimensionsCount(info, &n));
  dims->assign(n, 0);
  if (e.empty()) e = Err(g_ort->GetDimensions(info, dims->data(), n));
  if (ti) g_ort->ReleaseTypeInfo(ti);
  return e;
}

std::string Names(OrtSession* s, bool inputs, std::vector<std::string>* out) {
  OrtAllocator* alloc = nullptr;
  if (auto e = Err(g_ort->GetAllocatorWithDefaultOptions(&alloc)); !e.empty()) return e;
  size_t n = 0;
  if (auto e = Err(inputs ? g_ort->SessionGetInputCount(s, &n) : g_ort->SessionGetOutputCount(s, &n)); !e.empty())
    return e;
  for (size_t i = 0; i < n; ++i) {
    char* name = nullptr;
    OrtStatus* st = inputs ? g_ort->SessionGetInputName(s, i, alloc, &name) : g_ort->SessionGetOutputName(s, i, alloc, &name);
    if (auto e = Err(st); !e.empty()) return e;
    out->emplace_back(name);
    if (auto e = Err(g_ort->AllocatorFree(alloc, name)); !e.empty()) return e;
  }
  return "";
}

// The decoder's interface and the values of one generation.
class Generator {
 public:
  Generator(OrtSession* s, OrtMemoryInfo* mem) : s_(s), mem_(mem) {}
  ~Generator() {
    for (OrtValue* v : kv_) g_ort->ReleaseValue(v);
    if (binding_) g_ort->ReleaseIoBinding(binding_);
  }

  std::string Init(const Args& a) {
    a_ = a;
    std::vector<std::string> in, out;
    if (auto e = Names(s_, true, &in); !e.empty()) return e;
    if (auto e = Names(s_, false, &out); !e.empty()) return e;
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] == "input_ids" || in[i] == "attention_mask") continue;
      if (in[i].rfind("past_key_values.", 0) != 0)
        return "input '" + in[i] + "' is not input_ids, attention_mask or past_key_values.*";
      std::vector<int64_t> d;
      if (auto e = Dims(s_, true, i, &d); !e.empty()) return in[i] + ": " + e;
      if (d.size() != 4 || d[1] < 1 || d[3] < 1) return "input '" + in[i] + "' is not [batch, kv_heads, past, head_size]";
      kv_heads_ = d[1];
      head_size_ = d[3];
      past_.push_back(in[i]);
      present_.push_back("present." + in[i].substr(16));
    }
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i] == "logits") {
        std::vector<int64_t> d;
        if (auto e = Dims(s_, false, i, &d); !e.empty()) return "logits: " + e;
        vocab_ = d.empty() ? -1 : d.back();
      }
    if (vocab_ < 1) return "no output 'logits' with a static vocabulary dim";
    for (auto& n : past_) past_c_.push_back(n.c_str());
    for (auto& n : present_) present_c_.push_back(n.c_str());
    return "";
  }

  int64_t vocab() const { return vocab_; }

  // One step: `ids` at positions [total - ids.size(), total). Returns the greedy next id in *next.
  std::string Step(const std::vector<int64_t>& ids, int64_t total, int64_t* next) {
    std::vector<int64_t> ids_buf(ids), mask(static_cast<size_t>(total), 1);
    const int64_t ids_dims[2] = {1, static_cast<int64_t>(ids.size())}, mask_dims[2] = {1, total};
    OrtValue *ids_v = nullptr, *mask_v = nullptr;
    std::string e = Err(g_ort->CreateTensorWithDataAsOrtValue(mem_, ids_buf.data(), ids_buf.size() * 8, ids_dims, 2,
                                                              ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &ids_v));
    if (e.empty())
      e = Err(g_ort->CreateTensorWithDataAsOrtValue(mem_, mask.data(), mask.size() * 8, mask_dims, 2,
                                                     ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &mask_v));
    if (e.empty()) e = a_.share ? RunShared(ids_v, mask_v, next) : RunCopy(ids_v, mask_v, next);
    if (ids_v) g_ort->ReleaseValue(ids_v);
    if (mask_v) g_ort->ReleaseValue(mask_v);
    return e;
  }

 private:
  std::string Argmax(OrtValue* logits, int64_t* next) {
    OrtTensorTypeAndShapeInfo* info = nullptr;
    size_t n = 0;
    float* data = nullptr;
    std::string e = Err(g_ort->GetTensorTypeAndShape(logits, &info));
    if (e.empty()) e = Err(g_ort->GetTensorShapeElementCount(info, &n));
    if (info) g_ort->ReleaseTensorTypeAndShapeInfo(info);
    if (e.empty()) e = Err(g_ort->GetTensorMutableData(logits, reinterpret_cast<void**>(&data)));
    if (!e.empty()) return e;
    if (n == 0 || n % static_cast<size_t>(vocab_) != 0) return "logits of an unexpected size";
    const float* row = data + n - static_cast<size_t>(vocab_);
    *next = std::max_element(row, row + vocab_) - row;
    return "";
  }

  // Past and present bound to one max-length buffer per cache (GroupQueryAttention sees the
  // same data pointer and writes the new rows in place).
  std::string RunShared(OrtValue* ids, OrtValue* mask, int64_t* next) {
    if (!binding_) {
      if (auto e = Err(g_ort->CreateIoBinding(s_, &binding_)); !e.empty()) return e;
      OrtAllocator* alloc = nullptr;
      if (auto e = Err(g_ort->GetAllocatorWithDefaultOptions(&alloc)); !e.empty()) return e;
      const int64_t dims[4] = {1, kv_heads_, a_.max_length, head_size_};
      for (size_t i = 0; i < past_.size(); ++i) {
        OrtValue* v = nullptr;
        if (auto e = Err(g_ort->CreateTensorAsOrtValue(alloc, dims, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v)); !e.empty())
          return e;
        kv_.push_back(v);
        float* p = nullptr;
        if (auto e = Err(g_ort->GetTensorMutableData(v, reinterpret_cast<void**>(&p))); !e.empty()) return e;
        std::memset(p, 0, static_cast<size_t>(kv_heads_ * a_.max_length * head_size_) * sizeof(float));
        if (auto e = Err(g_ort->BindInput(binding_, past_c_[i], v)); !e.empty()) return e;
        if (auto e = Err(g_ort->BindOutput(binding_, present_c_[i], v)); !e.empty()) return e;
      }
    }
    std::string e = Err(g_ort->BindInput(binding_, "input_ids", ids));
    if (e.empty()) e = Err(g_ort->BindInput(binding_, "attention_mask", mask));
    if (e.empty()) e = Err(g_ort->BindOutputToDevice(binding_, "logits", mem_));
    if (e.empty()) e = Err(g_ort->RunWithBinding(s_, nullptr, binding_));
    if (!e.empty()) return e;
    OrtAllocator* alloc = nullptr;
    OrtValue** outs = nullptr;
    size_t n = 0;
    if (auto e2 = Err(g_ort->GetAllocatorWithDefaultOptions(&alloc)); !e2.empty()) return e2;
    if (auto e2 = Err(g_ort->GetBoundOutputValues(binding_, alloc, &outs, &n)); !e2.empty()) return e2;
    // Outputs in binding order: the presents first, logits last (bound last).
    e = n == past_.size() + 1 ? Argmax(outs[n - 1], next) : "unexpected bound outputs";
    for (size_t i = 0; i < n; ++i) g_ort->ReleaseValue(outs[i]);
    if (auto e2 = Err(g_ort->AllocatorFree(alloc, outs)); !e2.empty() && e.empty()) e = e2;
    return e;
  }

  std::string RunCopy(OrtValue* ids, OrtValue* mask, int64_t* next) {
    if (kv_.empty()) {
      const int64_t dims[4] = {1, kv_heads_, 0, head_size_};
      for (size_t i = 0; i < past_.size(); ++i) {
        OrtValue* v = nullptr;
        if (auto e = Err(g_ort->CreateTensorWithDataAsOrtValue(mem_, empty_, 0, dims, 4,
                                                               ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v));
            !e.empty())
          return e;
        kv_.push_back(v);
      }
    }
    std::vector<const char*> in = {"input_ids", "attention_mask"}, out = {"logits"};
    std::vector<const OrtValue*> vals = {ids, mask};
    for (size_t i = 0; i < past_.size(); ++i) {
      in.push_back(past_c_[i]);
      vals.push_back(kv_[i]);
      out.push_back(present_c_[i]);
    }
    std::vector<OrtValue*> outs(out.size(), nullptr);
    std::string e = Err(g_ort->Run(s_, nullptr, in.data(), vals.data(), in.size(), out.data(), out.size(), outs.data()));
    if (e.empty()) e = Argmax(outs[0], next);
    if (outs[0]) g_ort->ReleaseValue(outs[0]);
    for (size_t i = 0; i < past_.size(); ++i) {
      if (!outs[i + 1]) continue;
      g_ort->ReleaseValue(kv_[i]);
      kv_[i] = outs[i + 1];  // the present becomes the next past
    }
    return e;
  }

  OrtSession* s_;
  OrtMemoryInfo* mem_;
  Args a_;
  std::vector<std::string> past_, present_;
  std::vector<const char*> past_c_, present_c_;
  std::vector<OrtValue*> kv_;
  OrtIoBinding* binding_ = nullptr;
  int64_t kv_heads_ = 0, head_size_ = 0, vocab_ = -1;
  float empty_[1] = {0};
};

std::string Join(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + std::to_string(v[i]);
  return s;
}

int Generate(OrtSession* session, OrtMemoryInfo* mem, const Args& a, double create_ms) {
  Generator g(session, mem);
  if (auto e = g.Init(a); !e.empty()) return Fail(a.model + ": " + e);
  const std::vector<int64_t> prompt = PromptIds(a.seed, a.prompt_len, g.vocab());
  int64_t next = 0;
  const auto p0 = Clock::now();
  const double p0_cpu = ThreadCpuMs();
  if (auto e = g.Step(prompt, a.prompt_len, &next); !e.empty()) return Fail(a.model + ": prefill: " + e);
  const double prefill_ms = Ms(Clock::now() - p0), prefill_cpu_ms = ThreadCpuMs() - p0_cpu;
  const char* clock_name = "";
  const double first_ms = SinceStart(&clock_name) * 1e3;
  std::vector<int64_t> generated = {next};
  std::vector<double> steps, cpu;
  for (int64_t k = 1; k < a.new_tokens; ++k) {
    const auto b = Clock::now();
    const double b_cpu = ThreadCpuMs();
    if (auto e = g.Step({generated.back()}, a.prompt_len + k, &next); !e.empty())
      return Fail(a.model + ": decode step " + std::to_string(k) + ": " + e);
    steps.push_back(Ms(Clock::now() - b));
    cpu.push_back(ThreadCpuMs() - b_cpu);
    generated.push_back(next);
  }
  std::sort(steps.begin(), steps.end());
  std::sort(cpu.begin(), cpu.end());
  double mean = 0;
  for (double v : steps) mean += v;
  const bool any = !steps.empty();
  mean = any ? mean / static_cast<double>(steps.size()) : NAN;
  const double med = any ? steps[steps.size() / 2] : NAN;
  const size_t p90 = any ? static_cast<size_t>(std::ceil(0.9 * static_cast<double>(steps.size()))) - 1 : 0;
  std::printf("kv: %s\nsession_create_ms: %.3f\nprompt_tokens: %lld\nprefill_ms: %.3f\nprefill_cpu_ms: %.3f\n"
              "first_token_ms: %.3f\nstart_clock: %s\ndecode_steps: %zu\ndecode_median_ms: %.3f\n"
              "decode_p90_ms: %.3f\ndecode_min_ms: %.3f\ndecode_mean_ms: %.3f\ndecode_median_cpu_ms: %.3f\n"
              "decode_tokens_per_s: %.3f\nvm_hwm_kb: %ld\nprompt_ids: %s\ngenerated_ids: %s\n",
              a.share ? "share" : "copy", create_ms, static_cast<long long>(a.prompt_len), prefill_ms,
              prefill_cpu_ms, first_ms, clock_name, steps.size(), med, any ? steps[p90] : NAN,
              any ? steps.front() : NAN, mean, any ? cpu[cpu.size() / 2] : NAN, 1000.0 / med, StatusKb("VmHWM"),
              Join(prompt).c_str(), Join(generated).c_str());
  return 0;
}

int Main(int argc, char** argv) {
  Args a;
  if (auto e = ParseArgs(argc, argv, &a); !e.empty()) return Fail(e);
  const OrtApiBase* base = OrtGetApiBase();
  g_ort = base->GetApi(ORT_API_VERSION);
  if (!g_ort) return Fail(std::string("ONNX Runtime ") + base->GetVersionString() + " does not offer C API version " +
                          std::to_string(ORT_API_VERSION));
  OrtEnv* env = nullptr;
  OrtSessionOptions* so = nullptr;
  OrtMemoryInfo* mem = nullptr;
  if (auto e = Err(g_ort->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "vtensor-ort-generate", &env)); !e.empty()) return Fail(e);
  std::string e = Err(g_ort->CreateSessionOptions(&so));
  if (e.empty()) e = Err(g_ort->SetIntraOpNumThreads(so, 1));
  if (e.empty()) e = Err(g_ort->SetInterOpNumThreads(so, 1));
  if (e.empty()) e = Err(g_ort->SetSessionExecutionMode(so, ORT_SEQUENTIAL));
  if (e.empty()) e = Err(g_ort->SetSessionGraphOptimizationLevel(so, ORT_ENABLE_ALL));
  if (e.empty()) e = Err(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem));
  if (!e.empty()) return Fail(e);
  OrtSession* session = nullptr;
  const auto t0 = Clock::now();
  e = Err(g_ort->CreateSession(env, a.model.c_str(), so, &session));
  const double create_ms = Ms(Clock::now() - t0);
  if (!e.empty()) return Fail(a.model + ": " + e);
  std::printf("model: %s\nort_version: %s\nthreads: 1\n", a.model.c_str(), base->GetVersionString());
  const int rc = Generate(session, mem, a, create_ms);
  g_ort->ReleaseSession(session);
  g_ort->ReleaseMemoryInfo(mem);
  g_ort->ReleaseSessionOptions(so);
  g_ort->ReleaseEnv(env);
  return rc;
}

}  // namespace
}  // namespace vt::ortbench

int main(int argc, char** argv) { return vt::ortbench::Main(argc, argv); }
