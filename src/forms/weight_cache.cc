#include "vtensor/forms/weight_cache.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <future>
#include <cstdlib>
#include <set>

#include "vtensor/base/blake3.h"
#include "vtensor/base/file.h"
#include "vtensor/base/temp_file.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/format/payload_digest.h"
#include "vtensor/format/tensor_digest.h"
#include "vtensor/forms/verify_memo.h"

namespace vt {

struct WeightCache::Entry {
  int index = 0;
  const vtensor::CompiledTensorProto* ct = nullptr;
  const vtensor::StructTypeProto* type = nullptr;
  Layout layout;
  DigestAlgorithm algo = DigestAlgorithm::kBlake3;
  const uint8_t* payload = nullptr;
  size_t payload_size = 0;
  std::shared_ptr<const void> keep_alive;
  bool valid = false;  // passed every structural rule
  const Tensor* source = nullptr;
};

namespace {

// Initializers named `name` in every graph of the model (main graph and subgraphs).
void CollectInitializers(const Graph& g, std::multimap<std::string, const Tensor*>* out,
                         std::set<std::string>* overridable) {
  for (const auto& [n, t] : g.initializers) out->emplace(n, &t);
  for (const auto& in : g.inputs)
    if (g.initializers.count(in.name)) overridable->insert(in.name);
  for (const auto& node : g.nodes)
    for (const auto& [an, a] : node.attrs) {
      if (a.g) CollectInitializers(*a.g, out, overridable);
      for (const auto& sg : a.graphs) CollectInitializers(*sg, out, overridable);
    }
}

std::string MemoDir(const CacheOptions& o) {
  if (!o.memo_dir.empty()) return o.memo_dir;
  if (const char* d = std::getenv("VTENSOR_VERIFY_MEMO_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/vtensor/verify";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/vtensor/verify";
  return "";
}

Status MakeDirs(const std::string& dir) {
  std::string cur;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      if (!cur.empty() && ::mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST)
        return IoError("cannot create directory '" + cur + "'");
    }
    if (i < dir.size()) cur += dir[i];
  }
  return Status::Ok();
}

}  // namespace

const char* VerifyPolicyName(VerifyPolicy p) {
  switch (p) {
    case VerifyPolicy::kAlways: return "always";
    case VerifyPolicy::kMemo: return "memo";
    case VerifyPolicy::kNever: return "never";
  }
  return "always";
}

std::optional<VerifyPolicy> VerifyPolicyFromName(std::string_view name) {
  if (name == "always") return VerifyPolicy::kAlways;
  if (name == "memo") return VerifyPolicy::kMemo;
  if (name == "never") return VerifyPolicy::kNever;
  return std::nullopt;
}

std::string EntryStateText(const CacheEntryReport& r) {
  switch (r.state) {
    case EntryState::kHit: return "HIT";
    case EntryState::kMiss: return "MISS(" + r.reason + ")";
    case EntryState::kPending: return "PENDING";
  }
  return "?";
}

WeightCache::~WeightCache() = default;

std::unique_ptr<WeightCache> WeightCache::Open(const Model& model,
                                               std::shared_ptr<const vtensor::ModelExtension> ext,
                                               IsaLevel isa, const CacheOptions& opts) {
  auto c = std::unique_ptr<WeightCache>(new WeightCache());
  c->ext_ = ext ? std::move(ext) : std::make_shared<vtensor::ModelExtension>();
  c->isa_ = isa;
  c->opts_ = opts;
  c->model_path_ = model.path;
  const vtensor::ModelExtension& x = *c->ext_;
  std::multimap<std::string, const Tensor*> inits;
  std::set<std::string> overridable;
  if (model.graph) CollectInitializers(*model.graph, &inits, &overridable);
  const std::string base = DirName(model.path);
  const std::string arch = IsaArchitecture(isa);

  // (source, device, type name) -> first entry index, for duplicate keys.
  std::map<std::tuple<std::string, int, std::string>, int> keys;
  const int n = x.compiled_tensors_size();
  c->report_.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const vtensor::CompiledTensorProto& ct = x.compiled_tensors(i);
    auto e = std::make_unique<Entry>();
    e->index = i;
    e->ct = &ct;
    CacheEntryReport& r = c->report_[static_cast<size_t>(i)];
    r.index = i;
    r.source_name = ct.source_name();
    auto miss = [&](const char* reason, std::string detail) {
      r.state = EntryState::kMiss;
      r.reason = reason;
      r.detail = std::move(detail);
    };
    c->entries_.push_back(std::move(e));
    Entry& en = *c->entries_.back();
    if (!opts.enabled) {
      miss("not-selected", "compiled entries are disabled for this session");
      continue;
    }
    // Type (resolved first so that the report can name it).
    if (ct.has_value() && ct.value().has_struct_type()) {
      en.type = &ct.value().struct_type();
    } else if (ct.has_value() && ct.value().has_type_index()) {
      const int64_t ti = ct.value().type_index();
      if (ti >= 0 && ti < x.struct_types_size()) en.type = &x.struct_types(static_cast<int>(ti));
    }
    if (en.type) r.type_name = en.type->name();
    if (ct.has_device() && ct.device() >= 0 && ct.device() < x.devices_size())
      r.architecture = x.devices(ct.device()).architecture();
    if (ct.has_value() && ct.value().has_external()) r.location = ct.value().external().location();

    if (ct.source_name().empty()) { miss("malformed", "field source_name is empty"); continue; }
    if (!ct.has_value()) { miss("malformed", "field value is missing"); continue; }
    if (!ct.has_device()) { miss("malformed", "field device is missing"); continue; }
    if (ct.source_digest().empty()) { miss("malformed", "field source_digest is empty"); continue; }
    auto algo = DigestAlgorithmFromName(ct.digest_algorithm());
    if (!algo) {
      miss("malformed", "field digest_algorithm '" + ct.digest_algorithm() +
                            "' is not blake3 or sha256");
      continue;
    }
    en.algo = *algo;
    if (ct.source_digest().size() != DigestLength(*algo)) {
      miss("malformed", "field source_digest has " + std::to_string(ct.source_digest().size()) +
                            " bytes, " + ct.digest_algorithm() + " gives " +
                            std::to_string(DigestLength(*algo)));
      continue;
    }
    if (!ct.value().has_raw_data() && !ct.value().has_external()) {
      miss("malformed", "field value has no payload (raw_data or external)");
      continue;
    }
    const auto range = inits.equal_range(ct.source_name());
    const size_t count = static_cast<size_t>(std::distance(range.first, range.second));
    if (count == 0) {
      miss("no-such-initializer", "no initializer or Constant value named '" + ct.source_name() + "'");
      continue;
    }
    if (count > 1) {
      miss("ambiguous-source", "'" + ct.source_name() + "' names initializers in " +
                                   std::to_string(count) + " graphs");
      continue;
    }
    if (overridable.count(ct.source_name())) {
      miss("ambiguous-source", "initializer '" + ct.source_name() +
                                   "' is also a graph input and can be overridden at run time");
      continue;
    }
    en.source = range.first->second;
    if (ct.device() < 0 || ct.device() >= x.devices_size()) {
      miss("device-out-of-range", "field device = " + std::to_string(ct.device()) + ", the model has " +
                                      std::to_string(x.devices_size()) + " devices");
      continue;
    }
    const vtensor::DeviceProto& d = x.devices(ct.device());
    if (d.type() != "cpu") {
      miss("incompatible-device", "device.type '" + d.type() + "' is not 'cpu'");
      continue;
    }
    if (d.runtime() != kRuntimeName) {
      miss("incompatible-device", "device.runtime '" + d.runtime() + "' is not '" + kRuntimeName + "'");
      continue;
    }
    if (d.runtime_version() != kPackedAbiVersion) {
      miss("incompatible-device", "device.runtime_version '" + d.runtime_version() +
                                      "' differs from this runtime's packed ABI version '" +
                                      kPackedAbiVersion + "'");
      continue;
    }
    if (d.architecture() != arch) {
      const auto want = IsaFromArchitecture(d.architecture());
      std::string why = "device.architecture '" + d.architecture() + "' ";
      if (!want) why += "is unknown";
      else if (!IsaSupported(*want)) why += "is not supported by this CPU";
      else why += "is not this session's kernel architecture '" + arch + "'";
      miss("incompatible-device", why);
      continue;
    }
    // Duplicate keys: both entries are suspect.
    const auto key = std::make_tuple(ct.source_name(), static_cast<int>(ct.device()), r.type_name);
    if (auto [it, fresh] = keys.emplace(key, i); !fresh) {
      miss("malformed", "duplicate key (source_name, device, type) of entry " + std::to_string(it->second));
      CacheEntryReport& first = c->report_[static_cast<size_t>(it->second)];
      if (first.state != EntryState::kMiss) {
        first.state = EntryState::kMiss;
        first.reason = "malformed";
        first.detail = "duplicate key (source_name, device, type) of entry " + std::to_string(i);
        c->entries_[static_cast<size_t>(it->second)]->valid = false;
      }
      continue;
    }
    if (en.type == nullptr) {
      miss("invalid-struct", ct.value().has_type_index()
                                 ? "value.type_index " + std::to_string(ct.value().type_index()) +
                                       " is outside struct_types (" +
                                       std::to_string(x.struct_types_size()) + ")"
                                 : "value has no type");
      continue;
    }
    const vtensor::StructTypeProto& t = *en.type;
    if (IsSymbolicType(t)) { miss("invalid-struct", "type '" + t.name() + "' has a symbolic dim"); continue; }
    if (!t.has_layout()) { miss("invalid-struct", "type '" + t.name() + "' has no layout"); continue; }
    auto layout = LayoutFromProto(t.layout());
    if (!layout.ok()) { miss("invalid-struct", "type '" + t.name() + "' layout: " + layout.status().message()); continue; }
    if (layout->shape() != en.source->shape()) {
      miss("invalid-struct", "layout shape " + ShapeToString(layout->shape()) +
                                 " differs from initializer shape " + ShapeToString(en.source->shape()));
      continue;
    }
    // The layout's storage comes first; further fields (per-channel scales) may follow.
    int64_t fields_end = layout->StorageBytes();
    bool fields_ok = true;
    for (const auto& f : t.fields()) {
      auto fb = FieldBytes(f);
      if (!fb.ok() || f.offset() < 0) fields_ok = false;
      else fields_end = std::max(fields_end, f.offset() + *fb);
    }
    if (!fields_ok || t.byte_size() != fields_end) {
      miss("invalid-struct", "type '" + t.name() + "' byte_size " + std::to_string(t.byte_size()) +
                                 " differs from the end of its layout and fields (" +
                                 std::to_string(fields_end) + ")");
      continue;
    }
    en.layout = std::move(*layout);
    const auto version = KnownWeightFormVersion(t.name());
    if (!version) { miss("unknown-physical-type", "type '" + t.name() + "' is not a form this runtime packs"); continue; }
    if (*version != t.format_version()) {
      miss("unknown-format-version", "type '" + t.name() + "' format_version " +
                                         std::to_string(t.format_version()) + ", this runtime reads " +
                                         std::to_string(*version));
      continue;
    }
    // Payload.
    const size_t want = static_cast<size_t>(t.byte_size());
    r.payload_bytes = t.byte_size();
    if (ct.value().has_raw_data()) {
      const std::string& raw = ct.value().raw_data();
      if (raw.size() != want) {
        miss("payload-size", "raw_data has " + std::to_string(raw.size()) + " bytes, type needs " +
                                 std::to_string(want));
        continue;
      }
      en.payload = reinterpret_cast<const uint8_t*>(raw.data());
      en.payload_size = raw.size();
      en.keep_alive = c->ext_;
    } else {
      const vtensor::ExternalPayloadProto& ep = ct.value().external();
      const std::string& loc = ep.location();
      if (loc.empty() || loc[0] == '/' || loc.find("..") != std::string::npos) {
        miss("malformed", "value.external.location '" + loc + "' must be a relative path inside the model directory");
        continue;
      }
      if (ep.offset() < 0 || ep.offset() % 64 != 0 || ep.length() < 0) {
        miss("malformed", "value.external offset " + std::to_string(ep.offset()) +
                              " must be a non-negative multiple of 64");
        continue;
      }
      if (static_cast<size_t>(ep.length()) != want) {
        miss("payload-size", "value.external.length " + std::to_string(ep.length()) +
                                 ", type needs " + std::to_string(want));
        continue;
      }
      const std::string path = base + "/" + loc;
      auto& slot = c->payload_files_[path];
      if (!slot) {
        auto mf = MappedFile::Open(path);
        if (!mf.ok()) {
          miss(mf.status().code() == StatusCode::kNotFound ? "payload-missing" : "payload-size",
               mf.status().message());
          c->payload_files_.erase(path);
          continue;
        }
        slot = *mf;
      }
      const MappedFile* file = slot.get();
      if (static_cast<uint64_t>(ep.offset()) + want > file->size()) {
        miss("payload-size", "payload file '" + loc + "' has " + std::to_string(file->size()) +
                                 " bytes, the entry needs " + std::to_string(ep.offset() + ep.length()) +
                                 " (truncated)");
        continue;
      }
      en.payload = file->data() + ep.offset();
      en.payload_size = want;
      en.keep_alive = slot;
    }
    en.valid = true;
  }

  // The verification memo: identities of every file whose bytes a verification covers
  // (forms/verify_memo.h).
  if (opts.verify == VerifyPolicy::kMemo && !model.path.empty()) {
    c->memo_files_ = {model.path};
    for (const auto& [p, f] : c->payload_files_) c->memo_files_.insert(p);
    for (const auto& e : c->entries_)
      if (e->valid && e->source && e->source->storage() && e->source->storage()->mapped_file())
        c->memo_files_.insert(e->source->storage()->mapped_file()->path());
    c->memo_key_ = ComputeMemoKey(c->memo_files_, kPackedAbiVersion);
    c->read_started_ns_ = opts.read_started_ns;
    const std::string dir = MemoDir(opts);
    if (c->memo_key_.ok && !dir.empty()) {
      c->memo_path_ = MemoPath(dir, c->memo_key_);
      if (auto text = ReadFileToString(c->memo_path_); text.ok())
        if (auto v = ParseMemo(*text, c->memo_key_)) c->memo_verified_ = std::move(*v);
    }
  }
  return c;
}

Status WeightCache::Verify(Entry& e, const Tensor& tensor) {
  CacheEntryReport& r = report_[static_cast<size_t>(e.index)];
  if (opts_.verify == VerifyPolicy::kNever) return Status::Ok();
  if (opts_.verify == VerifyPolicy::kMemo &&
      std::find(memo_verified_.begin(), memo_verified_.end(), e.index) != memo_verified_.end()) {
    r.memo = true;
    return Status::Ok();
  }
  const std::string* stored = nullptr;
  for (const auto& kv : e.ct->metadata_props())
    if (kv.key() == kPayloadDigestKey) stored = &kv.value();
  // The payload's digest runs on a second thread while the source is hashed: the two reads
  // overlap, so verifying costs about one source hash, not two (always <= 1.3x).
  std::future<Status> payload_check;
  constexpr size_t kConcurrentMin = size_t{1} << 20;
  if (stored != nullptr && e.payload_size >= kConcurrentMin)
    payload_check = std::async(std::launch::async, [stored, &e] {
      return CheckPayloadDigest(*stored, e.payload, e.payload_size);
    });
  const bool concurrent = payload_check.valid();
  // The hashed source pages are not needed by a hit (a miss faults them back in from the page
  // cache): they are released piece by piece as the hash proceeds, so verifying keeps at most
  // one 8 MiB piece of each source resident beside the payloads.
  const bool mapped = tensor.storage() && tensor.storage()->mapped_file();
  auto digest = TensorDigest(tensor, e.algo,
                             mapped ? ByteSink([](const void* p, size_t n) { ReleaseMappedPages(p, n); })
                                    : ByteSink());
  Status payload_status = concurrent ? payload_check.get() : Status::Ok();
  if (!digest.ok()) {
    r.reason = "digest-mismatch";
    return digest.take_status();
  }
  if (mapped) ReleaseMappedPages(tensor.raw_data(), tensor.nbytes());  // non-contiguous case
  if (*digest != e.ct->source_digest()) {
    r.reason = "digest-mismatch";
    return FailedPrecondition("the source initializer's " + std::string(DigestAlgorithmName(e.algo)) +
                              " digest differs from source_digest (the entry is stale)");
  }
  r.reason = "payload-digest";
  if (stored == nullptr)
    return FailedPrecondition(std::string("metadata_props has no '") + kPayloadDigestKey + "'");
  if (!concurrent) payload_status = CheckPayloadDigest(*stored, e.payload, e.payload_size);
  VT_RETURN_IF_ERROR(payload_status);
  r.reason.clear();
  r.verified = true;
  memo_dirty_ = true;
  return Status::Ok();
}

std::optional<PackedWeight> WeightCache::Take(const std::string& source, const Tensor& tensor,
                                              const WeightForm& form) {
  for (auto& ep : entries_) {
    Entry& e = *ep;
    CacheEntryReport& r = report_[static_cast<size_t>(e.index)];
    if (!e.valid || r.state == EntryState::kMiss) continue;
    if (e.ct->source_name() != source) continue;
    if (e.type->name() != form.type_name || e.type->format_version() != form.format_version ||
        !(e.layout == form.layout) || static_cast<int64_t>(e.payload_size) != form.bytes())
      continue;
    if (r.state == EntryState::kPending) {
      Status st = Verify(e, tensor);
      if (!st.ok()) {
        r.state = EntryState::kMiss;
        if (r.reason.empty()) r.reason = "digest-mismatch";
        r.detail = st.message();
        continue;
      }
      r.state = EntryState::kHit;
    }
    PackedWeight w;
    w.data = e.payload;
    w.size = e.payload_size;
    w.keep_alive = e.keep_alive;
    return w;
  }
  return std::nullopt;
}

void WeightCache::Finish() {
  std::vector<int> verified;
  for (auto& ep : entries_) {
    Entry& e = *ep;
    CacheEntryReport& r = report_[static_cast<size_t>(e.index)];
    if (r.state == EntryState::kPending) {
      r.state = EntryState::kMiss;
      r.reason = "not-selected";
      r.detail = "no kernel of this session (architecture " + std::string(IsaArchitecture(isa_)) +
                 ") reads '" + e.ct->source_name() + "' as type '" + e.type->name() +
                 "' with this layout (another profile, kernel or node)";
    }
    if (r.state != EntryState::kHit) continue;
    if (r.verified || r.memo) verified.push_back(e.index);
    // The kernel reads the payload; the source's file-backed pages are not needed any more.
    if (e.source && e.source->storage() && e.source->storage()->mapped_file())
      ReleaseMappedPages(e.source->raw_data(), e.source->nbytes());
  }
  if (opts_.verify == VerifyPolicy::kMemo && memo_dirty_ && !memo_path_.empty() &&
      MemoRecordable(memo_key_, memo_files_, kPackedAbiVersion, read_started_ns_)) {
    const std::string dir = memo_path_.substr(0, memo_path_.rfind('/'));
    // Atomic but not fsync'ed (an fsync costs more than verifying a small model): a memo lost
    // or cut short by a crash fails its digest and only means verifying again.
    if (MakeDirs(dir).ok())
      if (auto f = TempFile::Create(memo_path_); f.ok()) {
        const std::string text = FormatMemo(memo_key_, verified);
        if ((*f)->Write(text.data(), text.size()).ok()) (void)(*f)->Publish(/*durable=*/false);
      }
  }
}

}  // namespace vt
