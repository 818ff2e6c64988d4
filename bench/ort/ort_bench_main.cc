// vtensor-ort-bench: ONNX Runtime's latency through its C API (no language binding between the
// timer and the session), measured the way `vtensor bench` measures vtensor, so that
// scripts/compare_ort.sh and `vtensor bench-load` compare like with like.
//
// usage: vtensor-ort-bench MODEL [--data DIR] [--runs N] [--warmup W]
//   --data DIR   ONNX backend-test inputs DIR/input_N.pb (N in session input order); without it
//                only --runs 0 is allowed. DIR/output_N.pb, when present, is compared with the
//                last run's outputs (max |ORT - reference| per output: a check that ORT saw the
//                same inputs as vtensor).
//   --runs N     timed runs after the warmup (default 20); 0: create the session only (what
//                `vtensor bench-load` times) and print session_create_ms and vm_hwm_kb
//   --warmup W   untimed runs after the first run (default 2)
// Session: 1 intra-op thread, 1 inter-op thread, sequential execution, all graph
// optimizations, CPU execution provider.
//
// Prints `key: value` lines: ort_version, session_create_ms, first_run_ms (the first Run after
// creation, its own line, never part of the timed runs), first_result_ms (process start to the
// first run's outputs; start_clock says how the start was taken, see docs/benchmarks.md),
// first_result_cpu_ms (the process's CPU time at that point, every thread, from exec),
// runs, median_ms, p90_ms, min_ms, first_run_cpu_ms and median_cpu_ms (the thread's CPU time:
// without the time other processes held the core), vm_hwm_kb, max_abs_diff. Exit 2 on a usage, load or run
// error.
#include <onnxruntime_c_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "process_stats.h"
#include "tensor_proto_reader.h"

namespace vt::ortbench {
namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

const OrtApi* g_ort = nullptr;

// "" when `s` is null (success); else its message (the status is released).
std::string Err(OrtStatus* s) {
  if (!s) return "";
  std::string m = g_ort->GetErrorMessage(s);
  g_ort->ReleaseStatus(s);
  return m.empty() ? "ONNX Runtime error" : m;
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "vtensor-ort-bench: %s\n", what.c_str());
  return 2;
}

struct Args {
  std::string model, data;
  int runs = 20, warmup = 2;
};

bool ParseInt(const char* s, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < 0 || v > 10000000) return false;
  *out = static_cast<int>(v);
  return true;
}

std::string ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const bool has_value = i + 1 < argc;
    if (k == "--data" && has_value) a->data = argv[++i];
    else if (k == "--runs" && has_value) {
      if (!ParseInt(argv[++i], &a->runs)) return "--runs needs an integer >= 0";
    } else if (k == "--warmup" && has_value) {
      if (!ParseInt(argv[++i], &a->warmup)) return "--warmup needs an integer >= 0";
    } else if (!k.empty() && k[0] != '-' && a->model.empty()) a->model = k;
    else return "unknown or incomplete argument '" + k + "'";
  }
  if (a->model.empty()) return "usage: vtensor-ort-bench MODEL [--data DIR] [--runs N] [--warmup W]";
  if (a->runs > 0 && a->data.empty()) return "--data DIR is needed for timed runs";
  return "";
}

// The session's inputs and outputs by name, with the input tensors bound to host buffers.
struct Feeds {
  std::vector<std::string> input_names, output_names;
  std::vector<HostTensor> inputs;
  std::vector<OrtValue*> values;
  ~Feeds() {
    for (OrtValue* v : values) g_ort->ReleaseValue(v);
  }
};

std::string Names(OrtSession* s, bool inputs, std::vector<std::string>* out) {
  OrtAllocator* alloc = nullptr;
  if (auto e = Err(g_ort->GetAllocatorWithDefaultOptions(&alloc)); !e.empty()) return e;
  size_t n = 0;
  if (auto e = Err(inputs ? g_ort->SessionGetInputCount(s, &n) : g_ort->SessionGetOutputCount(s, &n));
      !e.empty())
    return e;
  for (size_t i = 0; i < n; ++i) {
    char* name = nullptr;
    OrtStatus* st = inputs ? g_ort->SessionGetInputName(s, i, alloc, &name)
                           : g_ort->SessionGetOutputName(s, i, alloc, &name);
    if (auto e = Err(st); !e.empty()) return e;
    out->emplace_back(name);
    if (auto e = Err(g_ort->AllocatorFree(alloc, name)); !e.empty()) return e;
  }
  return "";
}

std::string MakeFeeds(OrtSession* s, const std::string& dir, Feeds* f) {
  if (auto e = Names(s, true, &f->input_names); !e.empty()) return e;
  if (auto e = Names(s, false, &f->output_names); !e.empty()) return e;
  OrtMemoryInfo* mem = nullptr;
  if (auto e = Err(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem)); !e.empty())
    return e;
  std::string err;
  f->inputs.resize(f->input_names.size());
  for (size_t i = 0; i < f->input_names.size() && err.empty(); ++i) {
    HostTensor& t = f->inputs[i];
    err = ReadTensorProtoFile(dir + "/input_" + std::to_string(i) + ".pb", &t);
    if (!err.empty()) break;
    OrtValue* v = nullptr;
    err = Err(g_ort->CreateTensorWithDataAsOrtValue(
        mem, t.data.get(), t.bytes, t.dims.data(), t.dims.size(),
        static_cast<ONNXTensorElementDataType>(t.data_type), &v));
    if (!err.empty()) err = "input " + f->input_names[i] + ": " + err;
    else f->values.push_back(v);
  }
  g_ort->ReleaseMemoryInfo(mem);
  return err;
}

// One Run; the outputs are released unless `keep` takes them.
std::string RunOnce(OrtSession* s, const Feeds& f, std::vector<OrtValue*>* keep) {
  std::vector<const char*> in, out;
  for (const auto& n : f.input_names) in.push_back(n.c_str());
  for (const auto& n : f.output_names) out.push_back(n.c_str());
  std::vector<OrtValue*> outs(out.size(), nullptr);
  std::string e = Err(g_ort->Run(s, nullptr, in.data(), f.values.data(), in.size(), out.data(),
                                 out.size(), outs.data()));
  if (keep && e.empty()) {
    *keep = outs;
    return e;
  }
  for (OrtValue* v : outs)
    if (v) g_ort->ReleaseValue(v);
  return e;
}

// max |output - DIR/output_i.pb| per output ("-" without a reference, "shape" on a mismatch).
std::string MaxAbsDiffs(const std::vector<OrtValue*>& outs, const std::string& dir) {
  std::string line;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (i) line += ", ";
    HostTensor ref;
    if (!ReadTensorProtoFile(dir + "/output_" + std::to_string(i) + ".pb", &ref).empty()) {
      line += "-";
      continue;
    }
    OrtTensorTypeAndShapeInfo* info = nullptr;
    size_t count = 0;
    ONNXTensorElementDataType type{};
    void* data = nullptr;
    std::string e = Err(g_ort->GetTensorTypeAndShape(outs[i], &info));
    if (e.empty()) e = Err(g_ort->GetTensorShapeElementCount(info, &count));
    if (e.empty()) e = Err(g_ort->GetTensorElementType(info, &type));
    if (info) g_ort->ReleaseTensorTypeAndShapeInfo(info);
    if (e.empty()) e = Err(g_ort->GetTensorMutableData(outs[i], &data));
    if (!e.empty() || static_cast<int64_t>(count) != ref.elements() ||
        static_cast<int32_t>(type) != ref.data_type || ElementBytes(ref.data_type) == 0) {
      line += "mismatch";
      continue;
    }
    double m = 0;
    for (int64_t k = 0; k < ref.elements(); ++k) {
      const double a = ElementAsDouble(ref.data_type, data, k), b = ref.At(k);
      if (std::isnan(a) && std::isnan(b)) continue;
      const double d = std::fabs(a - b);
      if (!(d <= m)) m = d;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", m);
    line += buf;
  }
  return line;
}

int Main(int argc, char** argv) {
  Args a;
  if (auto e = ParseArgs(argc, argv, &a); !e.empty()) return Fail(e);
  const OrtApiBase* base = OrtGetApiBase();
  g_ort = base->GetApi(ORT_API_VERSION);
  if (!g_ort) return Fail(std::string("ONNX Runtime ") + base->GetVersionString() +
                          " does not offer C API version " + std::to_string(ORT_API_VERSION));
  OrtEnv* env = nullptr;
  OrtSessionOptions* so = nullptr;
  if (auto e = Err(g_ort->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "vtensor-ort-bench", &env)); !e.empty())
    return Fail(e);
  std::string e = Err(g_ort->CreateSessionOptions(&so));
  if (e.empty()) e = Err(g_ort->SetIntraOpNumThreads(so, 1));
  if (e.empty()) e = Err(g_ort->SetInterOpNumThreads(so, 1));
  if (e.empty()) e = Err(g_ort->SetSessionExecutionMode(so, ORT_SEQUENTIAL));
  if (e.empty()) e = Err(g_ort->SetSessionGraphOptimizationLevel(so, ORT_ENABLE_ALL));
  if (!e.empty()) return Fail(e);

  OrtSession* session = nullptr;
  const auto t0 = Clock::now();
  e = Err(g_ort->CreateSession(env, a.model.c_str(), so, &session));
  const double create_ms = Ms(Clock::now() - t0);
  if (!e.empty()) return Fail(a.model + ": " + e);
  std::printf("model: %s\nort_version: %s\nthreads: 1\nsession_create_ms: %.3f\n", a.model.c_str(),
              base->GetVersionString(), create_ms);
  int rc = 0;
  if (a.runs > 0) {
    Feeds f;
    std::vector<OrtValue*> outs;
    const char* clock_name = "";
    double first_ms = 0, first_cpu_ms = 0, since_start = 0, first_result_cpu_ms = 0;
    std::vector<double> times, cpu;
    e = MakeFeeds(session, a.data, &f);
    if (e.empty()) {
      const double c = ThreadCpuMs();
      const auto b = Clock::now();
      e = RunOnce(session, f, nullptr);
      first_ms = Ms(Clock::now() - b);
      first_cpu_ms = ThreadCpuMs() - c;
      since_start = SinceStart(&clock_name);
      first_result_cpu_ms = ProcessCpuMs();
    }
    for (int i = 0; i < a.warmup && e.empty(); ++i) e = RunOnce(session, f, nullptr);
    for (int i = 0; i < a.runs && e.empty(); ++i) {
      const double c = ThreadCpuMs();
      const auto b = Clock::now();
      e = RunOnce(session, f, i + 1 == a.runs ? &outs : nullptr);
      times.push_back(Ms(Clock::now() - b));
      cpu.push_back(ThreadCpuMs() - c);
    }
    if (!e.empty()) {
      rc = Fail(a.model + ": " + e);
    } else {
      std::sort(times.begin(), times.end());
      std::sort(cpu.begin(), cpu.end());
      const size_t p90 = static_cast<size_t>(std::ceil(0.9 * times.size())) - 1;
      std::printf("first_run_ms: %.4f\nfirst_result_ms: %.3f\nfirst_result_cpu_ms: %.3f\n"
                  "start_clock: %s\nruns: %zu\n"
                  "median_ms: %.4f\np90_ms: %.4f\nmin_ms: %.4f\nfirst_run_cpu_ms: %.4f\n"
                  "median_cpu_ms: %.4f\nmax_abs_diff: %s\n",
                  first_ms, since_start * 1e3, first_result_cpu_ms, clock_name, times.size(),
                  times[times.size() / 2],
                  times[p90], times.front(), first_cpu_ms, cpu[cpu.size() / 2], MaxAbsDiffs(outs, a.data).c_str());
    }
    for (OrtValue* v : outs) g_ort->ReleaseValue(v);
  }
  std::printf("vm_hwm_kb: %ld\n", StatusKb("VmHWM"));
  g_ort->ReleaseSession(session);
  g_ort->ReleaseSessionOptions(so);
  g_ort->ReleaseEnv(env);
  return rc;
}

}  // namespace
}  // namespace vt::ortbench

int main(int argc, char** argv) { return vt::ortbench::Main(argc, argv); }
