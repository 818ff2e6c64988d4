#include "vtensor/runtime/session.h"

#include <chrono>
#include <limits>
#include <set>
#include <omp.h>
#include <cstdio>
#include <cstdlib>
#include <fmt/core.h>
#include <onnx/onnx_pb.h>

#include "exec/graph_runner.h"
#include "exec/thread_team.h"
#include "vtensor/base/code_pages.h"
#include "vtensor/base/page_memory.h"
#include "vtensor/passes/pass.h"
#include "runtime/session_alignment.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/format/model_skeleton.h"
#include "vtensor/forms/verify_memo.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/graph/plan_graph.h"
#include "vtensor/runtime/session_plan.h"

namespace vt {

std::vector<std::string> SessionPassNames(const SessionOptions& opts) {
  std::vector<std::string> names;
  if (opts.fold_constants) names.insert(names.end(), {"constant-folding", "fold-shapes", "constant-folding"});
  if (opts.fuse)
    names.insert(names.end(), {"fuse-hardswish", "fuse-conv", "fuse-dw-pw", "fuse-resize-add",
                               "fuse-layer-norm", "fuse-gelu", "fuse-attention", "fuse-rotary",
                               "fuse-matmul-bias", "fuse-skip-norm"});
  // Last, on the graph the kernels are made for: the rows of each GEMM by a constant weight
  // decide its form (docs/weight-forms.md, "Source layout, read in place").
  names.push_back("gemm-shapes");
  return names;
}

// The file name of a model loaded from bytes (LoadFromBytes), in messages.
constexpr const char kModelBytesLabel[] = "<model bytes>";

Session::~Session() = default;

namespace {

// Appends the wall time and minor faults since the previous mark to `phases` under a name.
class PhaseClock {
 public:
  explicit PhaseClock(std::vector<LoadPhase>* phases) : phases_(phases) {}
  void Mark(std::string name) {
    const auto now = std::chrono::steady_clock::now();
    const int64_t faults = ThreadMinorFaults();
    phases_->push_back({std::move(name),
                        std::chrono::duration<double, std::milli>(now - last_).count(),
                        faults - last_faults_});
    last_ = now;
    last_faults_ = faults;
  }

 private:
  std::vector<LoadPhase>* phases_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  int64_t last_faults_ = ThreadMinorFaults();
};

// A model's ModelProto and its compiled-tensor fields, parsed from its bytes in one pass.
struct ParsedModel {
  std::shared_ptr<const onnx::ModelProto> proto;
  std::shared_ptr<const vtensor::ModelExtension> ext;  // null when malformed
  std::string ext_error;                               // why the fields were ignored
};

// Malformed compiled-tensor fields make every entry a miss, not an error; only bytes that are
// no ModelProto at all are one.
Expected<ParsedModel> ParseForSession(const void* data, size_t size, const std::string& path) {
  ParsedModel p;
  Expected<CompiledModel> cm = ParseCompiledModel(data, size, path);
  if (cm.ok()) {
    p.proto = std::move(cm->model);
    p.ext = std::make_shared<const vtensor::ModelExtension>(std::move(cm->ext));
    return p;
  }
  auto plain = std::make_shared<onnx::ModelProto>();
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !plain->ParseFromArray(data, static_cast<int>(size)))
    return cm.status();
  p.proto = std::move(plain);
  p.ext_error = cm.status().message();
  return p;
}

// A graph of the source tensors of `g` (SourceTensors) as initializers, and nothing else.
std::shared_ptr<Graph> SourcesOnly(const Graph& g) {
  auto out = std::make_shared<Graph>();
  out->name = g.name;
  out->initializers = SourceTensors(g);
  return out;
}

}  // namespace

Expected<std::unique_ptr<Session>> Session::Create(Model model, const SessionOptions& opts) {
  return Create(std::move(model), opts, nullptr);
}

Expected<std::unique_ptr<Session>> Session::Create(
    Model model, const SessionOptions& opts,
    std::shared_ptr<const vtensor::ModelExtension> compiled) {
  return CreateTimed(std::move(model), opts, std::move(compiled), {}, std::nullopt);
}

Expected<std::unique_ptr<Session>> Session::CreateTimed(
    Model model, const SessionOptions& opts,
    std::shared_ptr<const vtensor::ModelExtension> compiled, std::vector<LoadPhase> phases,
    const std::optional<std::set<std::string>>& memo_files, PlanLookup* looked_up) {
  PhaseClock clock(&phases);
  if (opts.threads < 1) return InvalidArgument("threads must be >= 1");
  if (!opts.prepare_only && !IsaSupported(opts.isa))
    return InvalidArgument(std::string("kernel architecture ") + IsaArchitecture(opts.isa) +
                           " is not supported by this CPU");
  // The first run's code faults are taken here instead (base/code_pages.h), and the calling
  // thread's OpenMP team is started (exec/thread_team.h).
  if (!opts.prepare_only) {
    FaultInOwnCode();
    StartThreadTeam(opts.threads);
  }
  clock.Mark("code pages");
  auto s = std::unique_ptr<Session>(new Session());
  s->model_ = std::move(model);
  s->opts_ = opts;
  s->pools_ = std::make_unique<BufferPools>();
  // A session plan that hits stands for the passes (runtime/session_plan.h).
  PlanLookup plan =
      looked_up != nullptr ? std::move(*looked_up)
                           : LookupSessionPlan(s->model_, compiled, opts, memo_files);
  s->plan_report_ = std::move(plan.report);
  if (looked_up == nullptr) clock.Mark("session plan");
  if (plan.graph) {
    s->model_.graph = std::move(plan.graph);
    s->binds_dim_params_ = plan.binds_dim_params;
    // Weights the compiled entries stand for stay unread views of the file.
    AlignGraphTensors(*s->model_.graph,
                      PackedOnlyWeights(*s->model_.graph, compiled.get(), opts.isa, opts.profile));
  } else {
    // The passes may read any tensor.
    AlignGraphTensors(*s->model_.graph, {});
    RunPassesOptions pass_opts;
    pass_opts.report = [&s, &clock](const Pass& pass) {
      if (pass.rewrites() > 0 && pass.relies_on_dim_params()) s->binds_dim_params_ = true;
      clock.Mark(std::string("pass ") + pass.name());
    };
    VT_RETURN_IF_ERROR(RunNamedPasses(s->model_, SessionPassNames(opts), pass_opts));
  }
  s->cache_ = WeightCache::Open(s->model_, std::move(compiled), opts.isa, opts.cache, memo_files);
  s->provider_ = std::make_unique<WeightProvider>(opts.isa, opts.profile, s->cache_.get());
  if (opts.weight_observer) s->provider_->set_observer(opts.weight_observer);
  clock.Mark("weight cache open");
  // Weights packed at load use the session's threads (kernels/cpu/parallel_pack.h).
  omp_set_num_threads(opts.threads);
  VT_ASSIGN_OR_RETURN(s->runner_,
                      GraphRunner::Prepare(*s->model_.graph, s->model_, s->provider_.get()));
  clock.Mark("prepare kernels");
  s->cache_->Finish();
  s->WarnCacheMisses();
  clock.Mark("cache finish");
  if (!opts.prepare_only)
    s->read_ahead_ = ReadAhead::Start(s->provider_->TakeInPlaceRanges(),
                                      ReadAheadModeFrom(std::getenv("VTENSOR_READ_AHEAD")));
  s->load_phases_ = std::move(phases);
  return s;
}

CacheSummary Session::cache_summary() const {
  CacheSummary sum = SummarizeCache(cache_report());
  if (plan_report_.state == EntryState::kMiss && plan_report_.reason != MissReason::kCacheDisabled)
    sum.plan_miss = plan_report_.reason;
  return sum;
}

void WriteCacheWarningToStderr(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

void Session::WarnCacheMisses() const {
  if (!opts_.cache_warning) return;
  // A model from bytes has no file to name in the `vtensor inspect` hint.
  const bool in_memory = model_.path.empty() || model_.path.ends_with(kModelBytesLabel);
  const std::string line =
      CacheMissLine(cache_summary(), in_memory ? "" : model_.path, extension_error_);
  if (!line.empty()) opts_.cache_warning(line);
}

Expected<std::unique_ptr<Session>> Session::Load(const std::string& path,
                                               const SessionOptions& opts) {
  SessionOptions load_opts = opts;
  load_opts.cache.read_started_ns = WallClockNs();  // before the first read (forms/verify_memo.h)
  std::vector<LoadPhase> phases;
  PhaseClock clock(&phases);
  // One scan gives the ModelProto's skeleton (large payloads stay in the mapped file) and the
  // compiled-tensor fields.
  VT_ASSIGN_OR_RETURN(std::shared_ptr<MappedFile> file, MappedFile::Open(path));
  if (file->size() == 0) return InvalidArgument(path + ": empty file, not an ONNX model");
  // A session plan the memo vouches for needs, of the source graph, only the tensors it refers
  // to: the other nodes are neither parsed nor imported (docs/compiled-tensors.md "Loading
  // rules"). Where the plan then does not hit, the whole model is parsed after all.
  bool plan_first = load_opts.cache.enabled &&
                    load_opts.cache.verify == VerifyPolicy::kMemo && HasSessionPlans(*file);
  // A plan that lists its source tensors' places needs no graph at all: the model-level
  // fields first.
  VT_ASSIGN_OR_RETURN(ModelSkeleton p,
                      ParseModelSkeleton(file, path, true,
                                         plan_first ? SkeletonScope::kModel : SkeletonScope::kWhole));
  clock.Mark("parse");
  // What the memos key on (runtime/session_plan.h).
  std::optional<std::set<std::string>> memo_files = MemoSourceFiles(path, p.external_data_files);
  ImportOptions io;
  io.infer_shapes = false;  // the runtime binds shapes at run time
  io.keep_misaligned = true;  // CreateTimed aligns what the session reads
  if (!load_opts.cache.enabled) p.ext = nullptr;
  // Create had no entries to warn about; the unreadable extension is said here.
  auto finish = [&](std::unique_ptr<Session> s) -> Expected<std::unique_ptr<Session>> {
    if (load_opts.cache.enabled) s->extension_error_ = std::move(p.ext_error);
    if (!s->extension_error_.empty()) s->WarnCacheMisses();
    return s;
  };
  // After a plan that did not hit: the skeleton again, of the whole graph or of its sources.
  // Both scopes list the same external data files (ModelSkeleton::external_data_files).
  auto parse_again = [&](SkeletonScope scope, const char* phase) -> Status {
    VT_ASSIGN_OR_RETURN(ModelSkeleton again, ParseModelSkeleton(file, path, false, scope));
    p.proto = std::move(again.proto);
    p.elided = std::move(again.elided);
    memo_files = MemoSourceFiles(path, again.external_data_files);
    clock.Mark(phase);
    return Status::Ok();
  };
  if (plan_first && p.ext != nullptr && p.ext->session_plans_size() > 0) {
    ImportOptions model_only = io;
    model_only.elided = p.elided;
    model_only.sources_only = true;
    VT_ASSIGN_OR_RETURN(Model m, ImportModel(*p.proto, path, model_only));
    p.proto.reset();
    clock.Mark("import model");
    PlanLookup plan =
        LookupSessionPlan(m, p.ext, load_opts, memo_files, /*sources_only=*/true, file);
    if (plan.graph) {
      clock.Mark("session plan");
      VT_ASSIGN_OR_RETURN(auto s, CreateTimed(std::move(m), load_opts, p.ext, std::move(phases),
                                              memo_files, &plan));
      return finish(std::move(s));
    }
    // A plan without a source list takes the source tensors from the graph.
    VT_RETURN_IF_ERROR(plan.wants_sources
                           ? parse_again(SkeletonScope::kSources, "parse (sources)")
                           : parse_again(SkeletonScope::kWhole, "parse (whole)"));
    plan_first = plan.wants_sources;
  }
  if (plan_first) {
    if (p.ext != nullptr && p.ext->session_plans_size() > 0) {
      ImportOptions sources = io;
      sources.elided = p.elided;
      sources.sources_only = true;
      VT_ASSIGN_OR_RETURN(Model m, ImportModel(*p.proto, path, sources));
      // Freed before the plan graph is built, which then takes their pages instead of fresh
      // ones (docs/benchmarks.md "Session-ready with a session plan"): the skeleton (a miss
      // parses the whole model again) and the Constant nodes, whose values alone a plan needs.
      p.proto.reset();
      m.graph = SourcesOnly(*m.graph);
      clock.Mark("import sources");
      PlanLookup plan = LookupSessionPlan(m, p.ext, load_opts, memo_files, /*sources_only=*/true);
      if (plan.graph) {
        clock.Mark("session plan");
        VT_ASSIGN_OR_RETURN(auto s,
                            CreateTimed(std::move(m), load_opts, p.ext, std::move(phases),
                                        memo_files, &plan));
        return finish(std::move(s));
      }
    }
    VT_RETURN_IF_ERROR(parse_again(SkeletonScope::kWhole, "parse (whole)"));
  }
  file.reset();
  io.elided = p.elided;
  VT_ASSIGN_OR_RETURN(Model m, ImportModel(*p.proto, path, io));
  p.proto.reset();
  clock.Mark("import");
  VT_ASSIGN_OR_RETURN(auto s,
                      CreateTimed(std::move(m), load_opts, std::move(p.ext), std::move(phases),
                                  memo_files));
  return finish(std::move(s));
}

Expected<std::unique_ptr<Session>> Session::LoadFromBytes(const void* data, size_t size,
                                                         const std::string& base_dir,
                                                         const SessionOptions& opts) {
  // Relative external locations resolve against the directory of the model's path.
  const std::string label = kModelBytesLabel;
  const std::string path = base_dir.empty() ? label : JoinPath(base_dir, label);
  if (data == nullptr) return InvalidArgument(label + ": data is null");
  // Protobuf parses zero bytes as an empty ModelProto; say what the caller gave instead.
  if (size == 0) return InvalidArgument(label + ": empty (0 bytes), not an ONNX model");
  std::vector<LoadPhase> phases;
  PhaseClock clock(&phases);
  VT_ASSIGN_OR_RETURN(ParsedModel p, ParseForSession(data, size, path));
  clock.Mark("parse");
  ImportOptions io;
  io.infer_shapes = false;  // the runtime binds shapes at run time
  VT_ASSIGN_OR_RETURN(Model m, ImportModel(std::move(p.proto), path, io));
  clock.Mark("import");
  if (!opts.cache.enabled) p.ext = nullptr;
  // No file to key a memo on.
  VT_ASSIGN_OR_RETURN(auto s, CreateTimed(std::move(m), opts, std::move(p.ext), std::move(phases),
                                          std::nullopt));
  if (opts.cache.enabled) s->extension_error_ = std::move(p.ext_error);
  return s;
}

namespace {
Status CheckInput(const GraphIO& io, const Value& v, const std::string& file) {
  const TypeInfo& t = io.spec.type();
  const std::string where = file + ": input '" + io.name + "'";
  if (t.kind == TypeInfo::Kind::kTensor) {
    if (!v.is_tensor()) return InvalidArgument(where + ": expected a tensor");
    const Tensor& x = v.tensor();
    if (t.elem != DType::kUndefined && x.dtype() != t.elem)
      return InvalidArgument(where + ": dtype " + DTypeName(x.dtype()) + " does not match declared " +
                             DTypeName(t.elem));
    if (t.shape) {
      const SymShape& s = *t.shape;
      if (static_cast<int>(s.size()) != x.rank())
        return InvalidArgument(where + ": shape " + ShapeToString(x.shape()) + " has rank " +
                               std::to_string(x.rank()) + ", declared " + SymShapeToString(s));
      for (size_t d = 0; d < s.size(); ++d)
        if (s[d].known() && s[d].value != x.dim(static_cast<int>(d)))
          return InvalidArgument(where + ": shape " + ShapeToString(x.shape()) +
                                 " does not match declared " + SymShapeToString(s) + " at dim " +
                                 std::to_string(d));
    }
  } else if (t.kind == TypeInfo::Kind::kSequence) {
    if (!v.is_sequence()) return InvalidArgument(where + ": expected a sequence");
  }
  return Status::Ok();
}

// The ONNX IR gives a dimension variable (dim_param) one value across the whole graph ("MUST"),
// and the shape folding and fusions rely on it (passes/symbolic_shapes.h): when one of them
// rewrote the graph, inputs that bind one name to two sizes are refused. Models no such pass
// changed run with any sizes, as ONNX Runtime runs them (exporters that write one name, e.g.
// "?", for unrelated dims).
Status CheckDimParams(const std::vector<const GraphIO*>& real,
                      const std::vector<const Value*>& inputs, const std::string& file) {
  std::map<std::string, std::pair<int64_t, std::string>> bound;  // name -> (size, input)
  for (size_t i = 0; i < real.size(); ++i) {
    const TypeInfo& t = real[i]->spec.type();
    if (t.kind != TypeInfo::Kind::kTensor || !t.shape || !inputs[i]->is_tensor()) continue;
    const Tensor& x = inputs[i]->tensor();
    if (static_cast<int>(t.shape->size()) != x.rank()) continue;
    for (size_t d = 0; d < t.shape->size(); ++d) {
      const std::string& p = (*t.shape)[d].param;
      if (p.empty()) continue;
      auto [it, fresh] = bound.emplace(p, std::make_pair(x.dim(static_cast<int>(d)), real[i]->name));
      if (!fresh && it->second.first != x.dim(static_cast<int>(d)))
        return InvalidArgument(fmt::format("{}: input '{}' dim {} is {} but dimension '{}' is {} "
                                           "in input '{}'",
                                           file, real[i]->name, d, x.dim(static_cast<int>(d)), p,
                                           it->second.first, it->second.second));
    }
  }
  return Status::Ok();
}
}  // namespace

namespace {
// True when `t` shares bytes with a borrowed (caller-owned) input.
bool BorrowsInput(const Tensor& t, const std::vector<const Value*>& inputs) {
  const Storage* st = t.storage().get();
  if (st == nullptr || st->kind() != Storage::Kind::kBorrowed) return false;
  for (const Value* v : inputs) {
    if (v->is_tensor() && v->tensor().storage().get() == st) return true;
    if (v->is_sequence())
      for (const Tensor& x : v->sequence())
        if (x.storage().get() == st) return true;
  }
  return false;
}

// Outputs the caller reads in place: contiguous, and never over a borrowed input's bytes,
// which the caller may free once Run returns.
void OwnOutputs(std::vector<Value>* outs, const std::vector<const Value*>& inputs) {
  auto own = [&](Tensor& t) {
    if (!t.defined()) return;
    if (!t.is_contiguous() || BorrowsInput(t, inputs)) t = t.Clone();
  };
  for (Value& v : *outs) {
    if (v.is_tensor()) own(v.tensor());
    if (v.is_sequence())
      for (Tensor& x : v.sequence()) own(x);
  }
}
}  // namespace

Expected<std::vector<Value>> Session::Run(const std::vector<Value>& inputs) const {
  return Run(inputs, nullptr);
}

Expected<std::vector<Value>> Session::Run(const std::vector<Value>& inputs,
                                          OpProfile* profile) const {
  if (opts_.prepare_only) return RunRefused();
  auto real = model_.graph->RealInputs();
  if (inputs.size() != real.size()) {
    const std::string file = model_.path.empty() ? "<model>" : model_.path;
    return InvalidArgument(file + ": model takes " + std::to_string(real.size()) +
                           " inputs, got " + std::to_string(inputs.size()));
  }
  std::vector<const Value*> ptrs;
  ptrs.reserve(inputs.size());
  for (const Value& v : inputs) ptrs.push_back(&v);
  return RunInputs(ptrs, profile);
}

Expected<std::vector<Value>> Session::RunNamed(
    const std::vector<std::pair<std::string, Value>>& inputs,
    const std::vector<std::string>& output_names) const {
  if (opts_.prepare_only) return RunRefused();
  const std::string file = model_.path.empty() ? "<model>" : model_.path;
  auto real = model_.graph->RealInputs();
  std::vector<const Value*> ptrs(real.size(), nullptr);
  for (const auto& [name, value] : inputs) {
    size_t k = 0;
    while (k < real.size() && real[k]->name != name) ++k;
    if (k == real.size())
      return InvalidArgument(
          fmt::format("{}: no input named '{}' (inputs: {})", file, name, InputNames()));
    if (ptrs[k] != nullptr)
      return InvalidArgument(fmt::format("{}: input '{}' is given twice", file, name));
    ptrs[k] = &value;
  }
  for (size_t k = 0; k < real.size(); ++k)
    if (ptrs[k] == nullptr)
      return InvalidArgument(fmt::format("{}: input '{}' is missing", file, real[k]->name));
  std::vector<size_t> picks;
  const auto& outs = outputs();
  for (const std::string& name : output_names) {
    size_t k = 0;
    while (k < outs.size() && outs[k].name != name) ++k;
    if (k == outs.size())
      return InvalidArgument(
          fmt::format("{}: no output named '{}' (outputs: {})", file, name, OutputNames()));
    picks.push_back(k);
  }
  VT_ASSIGN_OR_RETURN(std::vector<Value> all, RunInputs(ptrs));
  if (output_names.empty()) return all;
  std::vector<Value> picked;
  picked.reserve(picks.size());
  for (size_t k : picks) picked.push_back(all[k]);
  return picked;
}

Status Session::RunRefused() const {
  const std::string file = model_.path.empty() ? "<model>" : model_.path;
  return FailedPrecondition(file + ": session was prepared for " + IsaArchitecture(opts_.isa) +
                            " only (prepare_only) and cannot run");
}

std::string Session::InputNames() const {
  std::string s;
  for (const GraphIO* io : inputs()) s += (s.empty() ? "'" : ", '") + io->name + "'";
  return s.empty() ? "none" : s;
}

std::string Session::OutputNames() const {
  std::string s;
  for (const GraphIO& io : outputs()) s += (s.empty() ? "'" : ", '") + io.name + "'";
  return s.empty() ? "none" : s;
}

Expected<std::vector<Value>> Session::RunInputs(const std::vector<const Value*>& inputs,
                                                OpProfile* profile) const {
  auto real = model_.graph->RealInputs();
  const std::string file = model_.path.empty() ? "<model>" : model_.path;
  std::unordered_map<std::string, Value> feeds;
  for (size_t i = 0; i < real.size(); ++i) {
    VT_RETURN_IF_ERROR(CheckInput(*real[i], *inputs[i], file));
    feeds[real[i]->name] = *inputs[i];
  }
  if (binds_dim_params_) VT_RETURN_IF_ERROR(CheckDimParams(real, inputs, file));
  // Sets the calling thread's team size only; other callers keep theirs.
  omp_set_num_threads(opts_.threads);
  BufferPools::Lease pool = pools_->Acquire();
  auto r = runner_->Run(feeds, pool.get(), opts_.threads, profile);
  if (!r.ok()) return r.take_status().WithContext(file);
  OwnOutputs(&*r, inputs);
  return r;
}

std::vector<std::pair<std::string, std::string>> Session::kernel_notes() const {
  return runner_ != nullptr ? runner_->KernelNotes()
                            : std::vector<std::pair<std::string, std::string>>{};
}

}  // namespace vt
