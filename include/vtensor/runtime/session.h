// Session: the runtime's final binding (docs/design.md §3.5). Loads a model, prepares one kernel per
// node (prepacking weights), then executes the graph in topological order with intermediate
// buffers released after their last use and recycled through a buffer pool.
//
// Thread safety (docs/design.md, "Concurrent runs"). Run and RunNamed may be called on one
// session from any number of threads at once: what creation prepared (graph, kernels, packed
// weights, cache report) is read-only afterwards, and each call owns its per-run state (value
// slots, intermediate buffers from a pool it holds for the call, kernel scratch). Results do
// not depend on how many calls run at once (random operators aside: a seeded node has one
// stream, and concurrent calls take their draws in turn). Memory: each call in flight holds its own
// intermediate buffers, and the session keeps the pools of its peak number of concurrent calls
// for reuse. Creation, destruction and the accessors below are not synchronised with runs
// except where noted: destroy a session only after every Run on it has returned.
//
// Threads per call. `SessionOptions::threads` OpenMP threads work inside each call (intra-op),
// so N concurrent callers use up to N x threads threads. Keep N x threads <= the cores the
// process may use: a service serving many concurrent requests sets threads = 1 (one core per
// request); a service running one request at a time sets threads = cores. Oversubscribing
// (N x threads > cores) stays correct but every parallel region then waits for descheduled
// threads, and latency grows faster than throughput (OMP_WAIT_POLICY=passive softens it).
//
// Caller memory. Inputs may borrow the caller's memory without a copy (Tensor::Borrow): the
// bytes must stay valid and unchanged until the Run that reads them returns. Outputs are
// contiguous tensors the caller reads in place (Tensor::data, raw_data) for as long as it
// holds them; they never share bytes with a borrowed input (an output that would, e.g. an
// input passed through Identity, is copied) but may share bytes with another output or, read
// only, with an initializer.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "vtensor/base/read_ahead.h"
#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"
#include "vtensor/tensor/value.h"
#include "vtensor/forms/cache_summary.h"
#include "vtensor/forms/weight_cache.h"
#include "vtensor/forms/weight_provider.h"

namespace vtensor {
class ModelExtension;
}

namespace vt {

// Writes `line` and a newline to standard error (SessionOptions::cache_warning's default).
void WriteCacheWarningToStderr(const std::string& line);

struct SessionOptions {
  int threads = 1;  // OpenMP intra-op threads (>= 1)
  // Evaluate constant subgraphs once at creation (runtime/constant_folding.h).
  bool fold_constants = true;
  // Apply graph fusions (passes/fusion.h, passes/transformer_fusion.h); they need folded
  // constants to match.
  bool fuse = true;
  // Kernel architecture of packed weights: the host's best ISA by default. Compiled
  // entries hit only for this architecture.
  IsaLevel isa = HostIsa();
  // Which weight forms are allowed: exact (lossless, default) or compact (requantized).
  WeightProfile profile = WeightProfile::kExact;
  // Compiled-tensor cache use and verification policy (forms/weight_cache.h).
  CacheOptions cache;
  // Prepare only (`vtensor compile` for another CPU): `isa` need not run on this CPU; Run()
  // is then refused.
  bool prepare_only = false;
  // Called for every weight the session packs or takes from the cache (may be empty).
  WeightObserver weight_observer;
  // Receives, once at creation, the one-line warning (forms/cache_summary.h CacheMissLine)
  // when the model's compiled tensors left weights to be packed at load: a payload file not
  // copied along, a damaged payload, entries for another profile or CPU, stale entries. The
  // default writes it to standard error; empty: silent (cache_report() still says it all).
  std::function<void(const std::string& line)> cache_warning = WriteCacheWarningToStderr;
};

// One step of session creation, its wall time and page faults, for `vtensor bench-load
// --phases`.
struct LoadPhase {
  std::string name;    // "parse", "import", "pass constant-folding", "prepare", ...
  double ms = 0;       // wall milliseconds
  // Minor page faults of the loading thread in the step (getrusage RUSAGE_THREAD): where a
  // fresh page's first touch is dear (a VM whose host backs each page on demand) they, more
  // than the work, set a load's time (docs/benchmarks.md "Session-ready with a session
  // plan"). File-backed pages (code, the mapped model) count too, at a fraction of the cost.
  int64_t faults = 0;
};

class GraphRunner;
class BufferPools;
class OpProfile;  // vtensor/exec/op_profile.h
struct PlanLookup;  // vtensor/runtime/session_plan.h

// The registered passes (passes/pass.h) a session runs at creation, in order: constant
// folding, shape folding and folding again (fold_constants), then the fusions (fuse;
// passes/fusion.h, passes/transformer_fusion.h). `vtensor passes --session` runs the same list.
std::vector<std::string> SessionPassNames(const SessionOptions& opts);

class Session {
 public:
  // Prepares `model`. Errors: InvalidArgument / Unimplemented naming the node, op type and
  // opset (unknown op or domain, cycle, undefined value, bad attribute).
  static Expected<std::unique_ptr<Session>> Create(Model model, const SessionOptions& opts = {});
  // As above, with the model's compiled tensors (ModelProto fields 27-29; null: none). Entries
  // that break a loading rule are misses and never an error. No verification memo is read or
  // written: a Model does not list the files its tensors were read from (Load does).
  static Expected<std::unique_ptr<Session>> Create(
      Model model, const SessionOptions& opts,
      std::shared_ptr<const vtensor::ModelExtension> compiled);
  // LoadModel + ReadModelExtension + Create. A malformed extension (fields 27-29) is reported
  // as a cache miss of every entry, not an error.
  static Expected<std::unique_ptr<Session>> Load(const std::string& path,
                                                 const SessionOptions& opts = {});
  // As Load, from the bytes of a model file held in memory (`size` bytes at `data`, copied
  // while loading: the caller may free them once this returns). External data (initializers
  // and compiled-tensor payloads) is relative to `base_dir`, or to the current directory
  // when `base_dir` is empty, as for ONNX Runtime's sessions from bytes; messages name the
  // model "<model bytes>". Errors: InvalidArgument for null data, zero bytes or bytes that are
  // not an ONNX model; as Load otherwise.
  static Expected<std::unique_ptr<Session>> LoadFromBytes(const void* data, size_t size,
                                                          const std::string& base_dir = "",
                                                          const SessionOptions& opts = {});
  ~Session();

  const Model& model() const { return model_; }
  // Inputs the caller must feed, in graph order (initializer-backed inputs excluded).
  std::vector<const GraphIO*> inputs() const { return model_.graph->RealInputs(); }
  const std::vector<GraphIO>& outputs() const { return model_.graph->outputs; }

  // Runs once. `inputs` follow inputs() order. Returns outputs in outputs() order.
  // Errors: InvalidArgument for a wrong count, dtype or a shape contradicting a fixed dim, or
  // (when a session pass relied on it, e.g. a transformer fusion) for inputs that give one
  // dim_param two sizes; any kernel error (naming node, op type and opset). Safe to call
  // concurrently.
  Expected<std::vector<Value>> Run(const std::vector<Value>& inputs) const;
  // As Run, and `profile` (exec/op_profile.h; may be null) receives one event per node run.
  // Safe to call concurrently, with one profile per call or a shared one.
  Expected<std::vector<Value>> Run(const std::vector<Value>& inputs, OpProfile* profile) const;

  // Runs once with inputs by name (each of inputs() exactly once, any order) and returns the
  // outputs named in `output_names`, in that order (empty: every output in outputs() order).
  // Errors: InvalidArgument naming an unknown, repeated or missing input or an unknown output
  // name; as Run otherwise. Safe to call concurrently.
  Expected<std::vector<Value>> RunNamed(
      const std::vector<std::pair<std::string, Value>>& inputs,
      const std::vector<std::string>& output_names = {}) const;

  // Options the session was created with.
  const SessionOptions& options() const { return opts_; }

  // HIT / MISS(reason) of every compiled entry, in file order (empty without entries). Final
  // once Create returns.
  const std::vector<CacheEntryReport>& cache_report() const { return cache_->report(); }
  // Every constant-weight decision (form candidates and why each was rejected). A run that
  // first reaches a function body or a lazily prepared subgraph appends to it: read it when
  // no run is in flight.
  const std::vector<WeightDecision>& weight_decisions() const { return provider_->decisions(); }
  // (node, description) of the kernels that describe their choices (exec/kernel_description.h),
  // in execution order: e.g. an attention node's microkernel row and its KV cache layout.
  std::vector<std::pair<std::string, std::string>> kernel_notes() const;
  // Set when the model's fields 27-29 could not be parsed (all entries then ignored).
  const std::string& extension_error() const { return extension_error_; }
  // The cache report summarised (forms/cache_summary.h): hits, and the misses that left
  // weights packed at load by reason. Final once Create returns.
  CacheSummary cache_summary() const;
  // The model's session plan (runtime/session_plan.h): HIT (the passes were skipped), MISS with
  // its reason (they ran), or state kPending when the model has none. type_name is
  // "vt.session_plan"; index is its place in the model's plans.
  const CacheEntryReport& plan_report() const { return plan_report_; }
  // Whether a pass relied on one size per dim_param (then Run checks the inputs for it).
  bool binds_dim_params() const { return binds_dim_params_; }
  // The steps creation took, in order (Load's parse and import included; their sum is the
  // session-ready time less the caller's own overhead).
  const std::vector<LoadPhase>& load_phases() const { return load_phases_; }
  // The background thread that reads, ahead of the first run and in its order, the weights
  // kernels read in place from the model's mapped files (base/read_ahead.h); null when there
  // are none or VTENSOR_READ_AHEAD=off.
  const ReadAhead* read_ahead() const { return read_ahead_.get(); }

 private:
  Session() = default;
  // Create, with the phases the caller already timed (Load: parse, import), the files the
  // verification memos key on (runtime/session_plan.h MemoSourceFiles; nullopt: no memo) and,
  // when not null, the session plan it already looked up (a hit for a sources-only import).
  static Expected<std::unique_ptr<Session>> CreateTimed(
      Model model, const SessionOptions& opts,
      std::shared_ptr<const vtensor::ModelExtension> compiled, std::vector<LoadPhase> phases,
      const std::optional<std::set<std::string>>& memo_files, PlanLookup* looked_up = nullptr);
  Expected<std::vector<Value>> RunInputs(const std::vector<const Value*>& inputs,
                                         OpProfile* profile = nullptr) const;
  Status RunRefused() const;
  // Passes CacheMissLine to opts_.cache_warning when there is something to report.
  void WarnCacheMisses() const;
  std::string InputNames() const;   // for messages: 'a', 'b'
  std::string OutputNames() const;
  Model model_;
  SessionOptions opts_;
  std::unique_ptr<BufferPools> pools_;  // one per concurrent run
  std::unique_ptr<WeightCache> cache_;
  std::unique_ptr<WeightProvider> provider_;
  std::string extension_error_;
  // A session pass relied on dim_params binding one size each (Run then checks the inputs).
  bool binds_dim_params_ = false;
  std::unique_ptr<GraphRunner> runner_;
  std::vector<LoadPhase> load_phases_;
  CacheEntryReport plan_report_;
  // Reads the weights read in place ahead of the first run (base/read_ahead.h); stopped and
  // joined first when the session is destroyed. Null when there was nothing to read.
  std::unique_ptr<ReadAhead> read_ahead_;
};

}  // namespace vt
