#include "vtensor/forms/weight_cache.h"

#include <algorithm>
#include <future>
#include <set>

#include "forms/loading_rules.h"
#include "vtensor/base/file.h"
#include "vtensor/base/page_memory.h"
#include "vtensor/format/payload_digest.h"
#include "vtensor/format/tensor_digest.h"
#include "vtensor/tensor/natural_alignment.h"

namespace vt {

struct WeightCache::Entry {
  int index = 0;
  const vtensor::CompiledTensorProto* ct = nullptr;
  const vtensor::StructTypeProto* type = nullptr;
  Layout layout;
  DigestAlgorithm algo = DigestAlgorithm::kBlake3;
  loading::Payload payload;
  bool valid = false;  // passed every structural rule
  const Tensor* source = nullptr;
};

namespace {

void SetMiss(CacheEntryReport& r, CacheMiss m) {
  r.state = EntryState::kMiss;
  r.reason = m.reason;
  r.detail = std::move(m.detail);
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
    case EntryState::kMiss: return std::string("MISS(") + MissReasonCode(r.reason) + ")";
    case EntryState::kPending: return "PENDING";
  }
  return "?";
}

WeightCache::~WeightCache() = default;

std::unique_ptr<WeightCache> WeightCache::Open(
    const Model& model, std::shared_ptr<const vtensor::ModelExtension> ext, IsaLevel isa,
    const CacheOptions& opts, const std::optional<std::set<std::string>>& source_files) {
  auto c = std::unique_ptr<WeightCache>(new WeightCache());
  c->ext_ = ext ? std::move(ext) : std::make_shared<vtensor::ModelExtension>();
  c->isa_ = isa;
  c->opts_ = opts;
  c->model_path_ = model.path;
  const loading::InitializerIndex inits = loading::IndexInitializers(model.graph.get());
  const int n = c->ext_->compiled_tensors_size();
  c->report_.resize(static_cast<size_t>(n));
  std::map<EntryKey, int> keys;  // first entry index of each key, for duplicates
  for (int i = 0; i < n; ++i) c->Index(i, inits, &keys);
  if (opts.verify == VerifyPolicy::kMemo && !model.path.empty() && source_files)
    c->OpenMemo(model, *source_files);
  return c;
}

void WeightCache::Index(int i, const loading::InitializerIndex& inits, std::map<EntryKey, int>* keys) {
  const vtensor::ModelExtension& x = *ext_;
  const vtensor::CompiledTensorProto& ct = x.compiled_tensors(i);
  entries_.push_back(std::make_unique<Entry>());
  Entry& en = *entries_.back();
  en.index = i;
  en.ct = &ct;
  CacheEntryReport& r = report_[static_cast<size_t>(i)];
  r.index = i;
  r.source_name = ct.source_name();
  if (!opts_.enabled)
    return SetMiss(r, {MissReason::kCacheDisabled, "compiled entries are disabled for this session"});
  // What the report names, resolved before any rule so that a miss still says what it was.
  en.type = loading::EntryType(x, ct);
  if (en.type) r.type_name = en.type->name();
  if (ct.has_device() && ct.device() >= 0 && ct.device() < x.devices_size())
    r.architecture = x.devices(ct.device()).architecture();
  if (ct.has_value() && ct.value().has_external()) r.location = ct.value().external().location();

  if (auto m = loading::RequiredFields(ct, &en.algo)) return SetMiss(r, std::move(*m));
  if (auto m = loading::SingleSource(ct, inits, &en.source)) return SetMiss(r, std::move(*m));
  if (auto m = loading::CompatibleDevice(x, ct, isa_)) return SetMiss(r, std::move(*m));
  const EntryKey key{ct.source_name(), static_cast<int>(ct.device()), r.type_name};
  if (auto [it, fresh] = keys->emplace(key, i); !fresh) return MarkDuplicate(i, it->second);
  if (auto m = loading::ValidStruct(x, ct, en.type, *en.source, &en.layout))
    return SetMiss(r, std::move(*m));
  if (auto m = loading::KnownForm(*en.type)) return SetMiss(r, std::move(*m));
  const size_t want = static_cast<size_t>(en.type->byte_size());
  r.payload_bytes = en.type->byte_size();
  auto m = ct.value().has_raw_data()
               ? loading::InlinePayload(ct, want, ext_, &en.payload)
               : loading::ExternalPayload(ct, want, DirName(model_path_), &payload_files_, &en.payload);
  if (m) return SetMiss(r, std::move(*m));
  en.valid = true;
}

// Both entries of a repeated key are suspect.
void WeightCache::MarkDuplicate(int i, int first) {
  const std::string key_text = "duplicate key (source_name, device, type) of entry ";
  SetMiss(report_[static_cast<size_t>(i)], {MissReason::kDuplicateKey, key_text + std::to_string(first)});
  CacheEntryReport& f = report_[static_cast<size_t>(first)];
  if (f.state != EntryState::kMiss) {
    SetMiss(f, {MissReason::kDuplicateKey, key_text + std::to_string(i)});
    entries_[static_cast<size_t>(first)]->valid = false;
  }
}

void WeightCache::OpenMemo(const Model& model, const std::set<std::string>& source_files) {
  std::set<std::string> files = source_files;
  files.insert(model.path);
  for (const auto& [p, f] : payload_files_) files.insert(p);
  for (const auto& e : entries_)
    if (e->valid && e->source && e->source->storage() && e->source->storage()->mapped_file())
      files.insert(e->source->storage()->mapped_file()->path());
  memo_files_ = std::move(files);
  memo_key_ = ComputeMemoKey(memo_files_, kPackedAbiVersion);
  const std::string dir = MemoDirectory(opts_.memo_dir);
  if (!memo_key_.ok || dir.empty()) return;
  memo_path_ = MemoPath(dir, memo_key_);
  if (auto text = ReadFileToString(memo_path_); text.ok())
    if (auto v = ParseMemo(*text, memo_key_)) memo_verified_ = std::move(*v);
}

std::optional<bool> WeightCache::CompareFirstLoad(Entry& e, const Tensor& tensor,
                                                  const WeightForm& form) {
  const bool mapped = tensor.storage() && tensor.storage()->mapped_file();
  // Both are read once, in order: map their pages in one call each, not fault by fault.
  if (mapped) PrefaultMappedPages(tensor.raw_data(), tensor.nbytes());
  PrefaultMappedPages(e.payload.data, e.payload.size);
  // The pack reads elements through typed pointers: a view of the file at an odd offset is
  // copied first (tensor/natural_alignment.h).
  auto same = CompareWithFreshPack(NaturallyAligned(tensor), form, e.payload.data, e.payload.size);
  if (mapped) ReleaseMappedPages(tensor.raw_data(), tensor.nbytes());
  if (!same) return std::nullopt;
  return same->ok() && **same;
}

std::optional<CacheMiss> WeightCache::Verify(Entry& e, const Tensor& tensor, const WeightForm& form) {
  CacheEntryReport& r = report_[static_cast<size_t>(e.index)];
  if (opts_.verify == VerifyPolicy::kNever) return std::nullopt;
  if (opts_.verify == VerifyPolicy::kMemo &&
      std::find(memo_verified_.begin(), memo_verified_.end(), e.index) != memo_verified_.end()) {
    r.memo = true;
    return std::nullopt;
  }
  const std::string* stored = nullptr;
  for (const auto& kv : e.ct->metadata_props())
    if (kv.key() == kPayloadDigestKey) stored = &kv.value();
  // The first load under memo compares the payload with a fresh pack of the source instead of
  // hashing both (docs/compiled-tensors.md, "First load under memo"): equal bytes prove the
  // entry is what this runtime makes of this source, which is what the digests stand for, and
  // the comparison costs less than a digest. Entries without a payload digest stay misses, as
  // under hashing. On a difference the hashing below names the reason.
  bool differs = false;
  if (opts_.verify == VerifyPolicy::kMemo && stored != nullptr) {
    if (auto same = CompareFirstLoad(e, tensor, form)) {
      if (*same) {
        r.verified = r.compared = true;
        memo_dirty_ = true;
        return std::nullopt;
      }
      differs = true;
    }
  }
  // The payload's digest runs on a second thread while the source is hashed: the two reads
  // overlap, so verifying costs about one source hash, not two (always <= 1.3x).
  std::future<Status> payload_check;
  constexpr size_t kConcurrentMin = size_t{1} << 20;
  const loading::Payload& p = e.payload;
  if (stored != nullptr && p.size >= kConcurrentMin)
    payload_check = std::async(std::launch::async, [stored, &p] {
      return CheckPayloadDigest(*stored, p.data, p.size);
    });
  const bool concurrent = payload_check.valid();
  // The hashed source pages are not needed by a hit (a miss faults them back in from the page
  // cache): they are released piece by piece as the hash proceeds, so verifying keeps at most
  // one 8 MiB piece of each source resident beside the payloads.
  const bool mapped = tensor.storage() && tensor.storage()->mapped_file();
  auto digest = TensorDigest(tensor, e.algo,
                             mapped ? ByteSink([](const void* q, size_t n) { ReleaseMappedPages(q, n); })
                                    : ByteSink());
  Status payload_status = concurrent ? payload_check.get() : Status::Ok();
  if (digest.ok() && mapped) ReleaseMappedPages(tensor.raw_data(), tensor.nbytes());  // non-contiguous case
  if (auto m = loading::FreshSource(digest, *e.ct, e.algo)) return m;
  if (stored != nullptr && !concurrent) payload_status = CheckPayloadDigest(*stored, p.data, p.size);
  if (auto m = loading::PayloadIntact(stored, payload_status)) return m;
  if (differs)  // both digests agree, yet the bytes are not what this runtime packs
    return CacheMiss{MissReason::kPackMismatch,
                     "the payload differs from a fresh pack of '" + e.ct->source_name() +
                         "' into " + form.type_name + " although both digests match"};
  r.verified = true;
  memo_dirty_ = true;
  return std::nullopt;
}

std::optional<PackedWeight> WeightCache::Take(const std::string& source, const Tensor& tensor,
                                              const WeightForm& form) {
  for (auto& ep : entries_) {
    Entry& e = *ep;
    CacheEntryReport& r = report_[static_cast<size_t>(e.index)];
    if (!e.valid || r.state == EntryState::kMiss) continue;
    if (e.ct->source_name() != source) continue;
    if (e.type->name() != form.type_name || e.type->format_version() != form.format_version ||
        !(e.layout == form.layout) || static_cast<int64_t>(e.payload.size) != form.bytes())
      continue;
    if (r.state == EntryState::kPending) {
      if (auto m = Verify(e, tensor, form)) {
        SetMiss(r, std::move(*m));
        continue;
      }
      r.state = EntryState::kHit;
    }
    PackedWeight w;
    w.data = e.payload.data;
    w.size = e.payload.size;
    w.keep_alive = e.payload.keep_alive;
    w.mapped = e.payload.mapped;
    return w;
  }
  return std::nullopt;
}

void WeightCache::Finish() {
  std::vector<int> verified;
  for (auto& ep : entries_) {
    Entry& e = *ep;
    CacheEntryReport& r = report_[static_cast<size_t>(e.index)];
    if (r.state == EntryState::kPending)
      SetMiss(r, {MissReason::kNotSelected,
                  "no kernel of this session (architecture " + std::string(IsaArchitecture(isa_)) +
                      ") reads '" + e.ct->source_name() + "' as type '" + e.type->name() +
                      "' with this layout (another profile, kernel or node)"});
    if (r.state != EntryState::kHit) continue;
    if (r.verified || r.memo) verified.push_back(e.index);
    // The kernel reads the payload; the source's file-backed pages are not needed any more.
    if (e.source && e.source->storage() && e.source->storage()->mapped_file())
      ReleaseMappedPages(e.source->raw_data(), e.source->nbytes());
  }
  if (opts_.verify == VerifyPolicy::kMemo && memo_dirty_ && !memo_path_.empty() &&
      MemoRecordable(memo_key_, memo_files_, kPackedAbiVersion, opts_.read_started_ns))
    WriteMemo(memo_path_, FormatMemo(memo_key_, verified));
}

}  // namespace vt
