#include "vtensor/runtime/session_plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "vtensor/base/file.h"
#include "vtensor/format/payload_digest.h"
#include "vtensor/forms/verify_memo.h"
#include "vtensor/graph/plan_graph.h"

namespace vt {

std::string SessionPlanRuntimeVersion() {
  return "passes-" + std::to_string(kSessionPassesAbi) + " packed-" + kPackedAbiVersion;
}

std::string SessionPlanOptions(const SessionOptions& opts) {
  std::string passes;
  for (const std::string& n : SessionPassNames(opts)) passes += (passes.empty() ? "" : ",") + n;
  return std::string("isa=") + IsaArchitecture(opts.isa) +
         " profile=" + WeightProfileName(opts.profile) + " passes=" + passes;
}

namespace {

size_t Aligned(size_t n) { return (n + kPlanBlobAlign - 1) / kPlanBlobAlign * kPlanBlobAlign; }

// Appends the list of the source tensors the plan refers to (SourcesToPlan) to `bytes` and
// names its offset in the plan; not where one of them is external data.
void AddSourceList(const std::map<std::string, Tensor>& sources,
                   const std::set<std::string>& referred, const SourceSpans& spans,
                   vtensor::SessionPlanProto* p, std::string* bytes) {
  std::map<std::string, Tensor> used;
  for (const std::string& name : referred) {
    if (spans.external.count(name)) return;
    used.emplace(name, sources.at(name));
  }
  std::map<std::string, PlanFileSpan> in_file;
  for (const auto& [name, span] : spans.in_file) in_file[name] = {span.offset, span.length};
  vtensor::PlanGraphProto list;
  SourcesToPlan(used, in_file, &list);
  const size_t at = bytes->size();
  list.AppendToString(bytes);
  auto* kv = p->add_metadata_props();
  kv->set_key(kPlanSourcesKey);
  kv->set_value(std::to_string(at) + " " + std::to_string(bytes->size() - at));
  bytes->resize(Aligned(bytes->size()), '\0');
}

}  // namespace

Expected<vtensor::SessionPlanProto> MakeSessionPlan(const Model& source, const Session& planned,
                                                    const SourceSpans* spans) {
  vtensor::SessionPlanProto p;
  p.set_format_version(kSessionPlanFormatVersion);
  p.set_runtime_version(SessionPlanRuntimeVersion());
  p.set_options(SessionPlanOptions(planned.options()));
  p.set_graph_digest(GraphStructureDigest(*source.graph));
  p.set_initializer_digest(InitializerDigest(*source.graph));
  p.set_binds_dim_params(planned.binds_dim_params());
  vtensor::PlanGraphProto g;
  const std::map<std::string, Tensor> sources = SourceTensors(*source.graph);
  // Payload: the stored tensors' bytes, the source list (with `spans`), then the graph (at
  // 64-byte aligned offsets).
  std::string bytes;
  std::set<std::string> referred;
  GraphToPlan(*planned.model().graph, &sources, &g, &bytes, &referred);
  bytes.resize(Aligned(bytes.size()), '\0');
  if (spans != nullptr) AddSourceList(sources, referred, *spans, &p, &bytes);
  p.set_graph_offset(static_cast<int64_t>(bytes.size()));
  if (g.ByteSizeLong() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !g.AppendToString(&bytes))
    return InvalidArgument(source.path + ": session plan graph over 2 GiB");
  p.set_payload_digest(PayloadDigest(bytes.data(), bytes.size()));
  p.set_raw_data(std::move(bytes));
  return p;
}

namespace {

struct PlanBytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keep_alive;
  std::string file;  // the external payload file ("" inline)
};

// Where the plan's source list stands in its payload (kPlanSourcesKey: "OFFSET LENGTH");
// nullopt when it has none, {-1, -1} when the value is not two numbers.
std::optional<std::pair<int64_t, int64_t>> SourceListSpan(const vtensor::SessionPlanProto& p) {
  for (const auto& kv : p.metadata_props()) {
    if (kv.key() != kPlanSourcesKey) continue;
    const std::string& v = kv.value();
    const size_t space = v.find(' ');
    auto number = [](const std::string& d) -> int64_t {
      if (d.empty() || d.size() > 18 || d.find_first_not_of("0123456789") != std::string::npos)
        return -1;
      return std::stoll(d);
    };
    if (space == std::string::npos) return std::pair<int64_t, int64_t>{-1, -1};
    return std::pair{number(v.substr(0, space)), number(v.substr(space + 1))};
  }
  return std::nullopt;
}

std::optional<CacheMiss> Miss(MissReason r, std::string detail) {
  return CacheMiss{r, std::move(detail)};
}

// The plan whose version and options are this session's; else the first plan's reason.
std::optional<CacheMiss> PickPlan(const vtensor::ModelExtension& ext, const SessionOptions& opts,
                                  int* pick) {
  const std::string version = SessionPlanRuntimeVersion(), options = SessionPlanOptions(opts);
  std::optional<CacheMiss> first;
  for (int i = 0; i < ext.session_plans_size(); ++i) {
    const auto& p = ext.session_plans(i);
    if (p.format_version() != kSessionPlanFormatVersion || p.runtime_version() != version) {
      if (!first)
        first = Miss(MissReason::kOtherPlanVersion,
                     "format_version " + std::to_string(p.format_version()) + ", runtime_version '" +
                         p.runtime_version() + "'; this runtime: " +
                         std::to_string(kSessionPlanFormatVersion) + ", '" + version + "'");
      continue;
    }
    if (p.options() != options) {
      if (!first)
        first = Miss(MissReason::kOtherOptions,
                     "options '" + p.options() + "'; this session: '" + options + "'");
      continue;
    }
    *pick = i;
    return std::nullopt;
  }
  return first;
}

std::optional<CacheMiss> ReadPlanBytes(const vtensor::SessionPlanProto& p,
                                       const std::shared_ptr<const vtensor::ModelExtension>& ext,
                                       const std::string& model_path, PlanBytes* out) {
  if (p.has_raw_data()) {
    out->data = reinterpret_cast<const uint8_t*>(p.raw_data().data());
    out->size = p.raw_data().size();
    out->keep_alive = ext;
    return std::nullopt;
  }
  if (!p.has_external()) return Miss(MissReason::kMissingField, "no payload (raw_data or external)");
  const auto& x = p.external();
  const std::string& loc = x.location();
  if (loc.empty() || loc[0] == '/' || loc.find("..") != std::string::npos)
    return Miss(MissReason::kBadPayloadLocation,
                "external.location '" + loc + "' must be a relative path inside the model directory");
  if (x.offset() < 0 || x.offset() % 64 != 0 || x.length() < 0)
    return Miss(MissReason::kBadPayloadOffset,
                "external offset " + std::to_string(x.offset()) + " must be a non-negative multiple of 64");
  out->file = JoinPath(DirName(model_path.empty() ? std::string("./x") : model_path), loc);
  auto mf = MappedFile::Open(out->file);
  if (!mf.ok())
    return Miss(mf.status().code() == StatusCode::kNotFound ? MissReason::kMissingPayloadFile
                                                            : MissReason::kPayloadUnreadable,
                mf.status().message());
  if (static_cast<uint64_t>(x.offset()) + static_cast<uint64_t>(x.length()) > (*mf)->size())
    return Miss(MissReason::kTruncatedPayload,
                "payload file '" + loc + "' has " + std::to_string((*mf)->size()) +
                    " bytes, the plan needs " + std::to_string(x.offset() + x.length()) +
                    " (truncated)");
  out->data = (*mf)->data() + x.offset();
  out->size = static_cast<size_t>(x.length());
  out->keep_alive = *mf;
  return std::nullopt;
}

// The verification rules: the payload's own digest, the source graph's structure and (unless
// verification is off) its initializers' bytes.
std::optional<CacheMiss> VerifyPlan(const vtensor::SessionPlanProto& p, const PlanBytes& b,
                                    const Graph& source, VerifyPolicy policy) {
  if (p.payload_digest().empty())
    return Miss(MissReason::kNoPayloadDigest, "the plan has no payload_digest");
  if (Status st = CheckPayloadDigest(p.payload_digest(), b.data, b.size); !st.ok())
    return Miss(MissReason::kPayloadDigest, st.message());
  if (GraphStructureDigest(source) != p.graph_digest())
    return Miss(MissReason::kStaleGraph,
                "the source graph's structure digest differs from graph_digest (the model "
                "changed since compile)");
  if (policy != VerifyPolicy::kNever && InitializerDigest(source) != p.initializer_digest())
    return Miss(MissReason::kStaleGraph,
                "the source initializers' digest differs from initializer_digest (the model "
                "changed since compile)");
  return std::nullopt;
}

// Files whose bytes a plan's verification covers: the model's (MemoSourceFiles) and the
// payload file.
std::optional<std::set<std::string>> MemoFiles(std::optional<std::set<std::string>> files,
                                               const PlanBytes& b) {
  if (files && !b.file.empty()) files->insert(b.file);
  return files;
}

}  // namespace

PlanLookup LookupSessionPlan(const Model& source,
                             const std::shared_ptr<const vtensor::ModelExtension>& ext,
                             const SessionOptions& opts,
                             const std::optional<std::set<std::string>>& source_files,
                             bool sources_only,
                             const std::shared_ptr<const MappedFile>& model_file) {
  PlanLookup out;
  CacheEntryReport& r = out.report;
  r.type_name = kSessionPlanTypeName;
  if (!ext || ext->session_plans_size() == 0) return out;
  auto miss = [&r](CacheMiss m) {
    r.state = EntryState::kMiss;
    r.reason = m.reason;
    r.detail = std::move(m.detail);
  };
  if (!opts.cache.enabled) {
    miss({MissReason::kCacheDisabled, "compiled entries are disabled for the session"});
    return out;
  }
  int pick = -1;
  if (auto m = PickPlan(*ext, opts, &pick)) return miss(*m), out;
  r.index = pick;
  const auto& plan = ext->session_plans(pick);
  PlanBytes bytes;
  if (auto m = ReadPlanBytes(plan, ext, source.path, &bytes)) return miss(*m), out;
  r.payload_bytes = static_cast<int64_t>(bytes.size);
  if (plan.has_external()) r.location = plan.external().location();

  const VerifyPolicy policy = opts.cache.verify;
  const std::string abi = "session-plan " + SessionPlanRuntimeVersion() + " " + plan.options();
  // A graph without nodes (the plan-first load's) holds its source tensors as its
  // initializers: read in place, not copied.
  std::map<std::string, Tensor> copied;
  const std::map<std::string, Tensor>* sources =
      source.graph->nodes.empty() ? &source.graph->initializers
                                  : &(copied = SourceTensors(*source.graph));
  std::set<std::string> files;
  MemoKey key;
  std::string memo_path;
  std::optional<std::set<std::string>> memo_files;
  if (policy == VerifyPolicy::kMemo) memo_files = MemoFiles(source_files, bytes);
  if (memo_files) {
    files = std::move(*memo_files);
    key = ComputeMemoKey(files, abi);
    const std::string dir = MemoDirectory(opts.cache.memo_dir);
    if (key.ok && !dir.empty()) {
      // Beside the compiled tensors' memo of the same files, under its own name.
      const std::string weights_memo = MemoPath(dir, key);
      memo_path = JoinPath(DirName(weights_memo), "plan-" + weights_memo.substr(DirName(weights_memo).size() + 1));
      if (auto text = ReadFileToString(memo_path); text.ok())
        if (auto done = ParseMemo(*text, key); done && std::count(done->begin(), done->end(), pick))
          r.memo = true;
    }
  }
  if (!r.memo) {
    if (sources_only) return PlanLookup{};
    if (auto m = VerifyPlan(plan, bytes, *source.graph, policy)) return miss(*m), out;
    r.verified = policy != VerifyPolicy::kNever;
  }
  const int64_t at = plan.graph_offset();
  if (at < 0 || static_cast<uint64_t>(at) > bytes.size)
    return miss({MissReason::kBadPlan, "graph_offset " + std::to_string(at) + " outside the " +
                                           std::to_string(bytes.size) + "-byte payload"}), out;
  const size_t graph_bytes = bytes.size - static_cast<size_t>(at);
  TensorContext ctx;
  ctx.file = source.path;
  std::shared_ptr<Graph> listed;
  if (model_file != nullptr) {
    const std::optional<std::pair<int64_t, int64_t>> list = SourceListSpan(plan);
    if (!list) {
      PlanLookup wants;
      wants.wants_sources = true;
      return wants;
    }
    const auto [list_at, list_bytes] = *list;
    if (list_at < 0 || list_bytes < 0 || list_bytes > at || list_at > at - list_bytes)
      return miss({MissReason::kBadPlan, std::string(kPlanSourcesKey) + " [" +
                                             std::to_string(list_at) + ", +" +
                                             std::to_string(list_bytes) +
                                             ") is not inside the payload ahead of graph_offset " +
                                             std::to_string(at)}), out;
    const PlanBlobs in_file{model_file->data(), model_file->size(), model_file, true};
    auto l = GraphFromPlan(bytes.data + list_at, static_cast<size_t>(list_bytes), {}, in_file,
                           nullptr, ctx);
    if (!l.ok()) return miss({MissReason::kBadPlan, "source list: " + l.status().message()}), out;
    listed = std::move(*l);
    sources = &listed->initializers;
  }
  const PlanBlobs blobs{bytes.data, static_cast<size_t>(at), bytes.keep_alive};
  auto g = GraphFromPlan(bytes.data + at, graph_bytes, *sources, blobs, nullptr, ctx);
  if (!g.ok()) return miss({MissReason::kBadPlan, g.status().message()}), out;
  out.graph = std::move(*g);
  out.binds_dim_params = plan.binds_dim_params();
  r.state = EntryState::kHit;
  if (r.verified && !memo_path.empty() && MemoRecordable(key, files, abi, opts.cache.read_started_ns))
    WriteMemo(memo_path, FormatMemo(key, {pick}));
  return out;
}

std::optional<std::set<std::string>> MemoSourceFiles(
    const std::string& model_path, const std::optional<std::set<std::string>>& external_data_files) {
  if (model_path.empty() || !external_data_files) return std::nullopt;
  std::set<std::string> files = *external_data_files;
  files.insert(model_path);
  return files;
}

}  // namespace vt
