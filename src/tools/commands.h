// Subcommands of the `vtensor` CLI. Each returns the process exit code:
// 0 success / all outputs pass, 1 a mismatch (run) or findings (check), 2 any error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/input_flags.h"
#include "tools/session_flags.h"

namespace vt::cli {

struct RunArgs {
  std::string model;
  InputFlags inputs;  // --data DIR also supplies the reference outputs (output_N.pb)
  double rtol = 1e-3;
  double atol = 1e-7;
  int threads = 1;
  bool print = false;      // print output values, NumPy-like, long axes elided
  bool print_all = false;  // print output values without eliding
  std::string save_outputs;          // directory: one file per output
  std::string save_format = "pb";    // pb: output_N.pb (TensorProto) | npy: output_N.npy
  bool json = false;                 // the report as JSON (docs/cli.md)
  std::string profile_ops;           // FILE: per-node timing as a Chrome trace (tools/op_trace.h)
  SessionFlags session;
};
int RunCommand(const RunArgs& a);

struct InfoArgs {
  std::string model;
  bool json = false;
};
int InfoCommand(const InfoArgs& a);

struct BenchArgs {
  std::string model;
  InputFlags inputs;
  int runs = 20;
  int warmup = 2;
  int threads = 1;
  bool json = false;
  std::string profile_ops;  // FILE: Chrome trace of the timed runs (tools/op_trace.h)
  int top = 0;              // > 0: print the K op types with the most self time
  std::string profile_first;  // FILE: Chrome trace of the first run
  SessionFlags session;
};
int BenchCommand(const BenchArgs& a);

// Greedy generation with an onnxruntime-genai form decoder (tools/cmd_generate.cc).
struct GenerateArgs {
  std::string model;
  int64_t prompt_len = 16;  // prompt tokens (ids from `seed`)
  int64_t new_tokens = 16;  // generated tokens: 1 from the prefill, then one per decode step
  uint64_t seed = 0;
  int64_t vocab = 0;        // 0: logits' static last dim
  int threads = 1;
  bool read_floor = false;  // also measure the read bandwidth of the weight bytes per token
  SessionFlags session;
};
int GenerateCommand(const GenerateArgs& a);  // 0 ok, 2 error

// Digests, checker and inspector of models with compiled tensors.
struct DigestArgs {
  std::string model;
  std::string tensor;  // empty: every tensor compile may cache (initializers, Constant values)
  std::string algo = "blake3";
  bool json = false;
};
int DigestCommand(const DigestArgs& a);  // 0 ok, 2 error

struct CheckArgs {
  std::string model;
  bool json = false;
  bool decode = false;
};
int CheckCommand(const CheckArgs& a);  // 0 no error, 1 errors, 2 unreadable

struct InspectArgs {
  std::string model;
  bool json = false;
  bool cache = false;  // --cache: HIT / MISS(reason) per entry for this machine
  SessionFlags session;
};
int InspectCommand(const InspectArgs& a);  // 0 ok, 2 unreadable

// Target passes and structural export.
struct PassesArgs {
  std::string model;
  std::string target;  // empty: no target
  bool print_after_all = false;
  bool session = false;  // the passes a Session runs (runtime/session.h SessionPassNames)
  bool json = false;     // passes (with rewrite counts for --session) and the graph text
};
int PassesCommand(const PassesArgs& a);  // 0 ok, 2 error

struct ExportArgs {
  std::string model;
  std::string format = "stablehlo";  // json | stablehlo
  std::string target;                // empty: no target, no layouts
  std::string out;
  std::string params;                // .irpa path (stablehlo): externalize weights
  std::string param_scope = "model";
  int64_t externalize_above = 1024;  // bytes; weights larger than this go to --params
  bool per_type_layouts = false;
  std::vector<std::string> input_shapes;  // NAME=D0xD1x...
  std::vector<std::string> input_values;  // NAME=V[,V...]: input bound to a constant
};
int ExportCommand(const ExportArgs& a);  // 0 ok, 2 error (no output file written)

// The compiled-tensor cache.
struct CompileArgs {
  std::string model;
  std::string out;
  std::vector<std::string> devices;  // default: native
  std::string profile = "exact";
  std::string payload = "external";  // external | inline
  std::string algo = "blake3";
  bool progress = true;              // only drawn when stderr is a terminal
  // Test data set (DIR/input_N.pb) on which to measure the compiled model's outputs against
  // the source model's ("" = none).
  std::string data;
  bool quiet = false;                // no warning on stderr for lossy entries
};
// 0 ok, 2 error (no output written; or written, then its measurement on --data failed).
int CompileCommand(const CompileArgs& a);

struct BenchLoadArgs {
  std::string model;
  int reps = 3;
  int threads = 1;  // SessionOptions::threads of the vtensor rows (packing uses them)
  int processes = 0;  // > 0: total Pss of this many processes holding a session instead
  std::string verify = "never";  // --processes: the sessions' verify policy
  std::string ort;  // vtensor-ort-bench path ("" = beside vtensor, "none" = skip)
  bool json = false;
  bool phases = false;  // also each row's phases of session creation
};
int BenchLoadCommand(const BenchLoadArgs& a);  // 0 ok, 2 error

}  // namespace vt::cli
