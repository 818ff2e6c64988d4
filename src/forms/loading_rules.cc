#include "forms/loading_rules.h"

#include <algorithm>

#include "vtensor/format/compiled_model.h"
#include "vtensor/format/payload_digest.h"
#include "vtensor/forms/weight_form.h"

namespace vt::loading {

namespace {

CacheMiss Miss(MissReason reason, std::string detail) { return {reason, std::move(detail)}; }

void Collect(const Graph& g, InitializerIndex* out) {
  for (const auto& [n, t] : g.initializers) out->by_name.emplace(n, &t);
  for (const auto& in : g.inputs)
    if (g.initializers.count(in.name)) out->overridable.insert(in.name);
  for (const auto& node : g.nodes)
    for (const auto& [an, a] : node.attrs) {
      if (a.g) Collect(*a.g, out);
      for (const auto& sg : a.graphs) Collect(*sg, out);
    }
}

}  // namespace

InitializerIndex IndexInitializers(const Graph* main) {
  InitializerIndex idx;
  if (main) Collect(*main, &idx);
  return idx;
}

const vtensor::StructTypeProto* EntryType(const vtensor::ModelExtension& x,
                                          const vtensor::CompiledTensorProto& ct) {
  if (ct.has_value() && ct.value().has_struct_type()) return &ct.value().struct_type();
  if (ct.has_value() && ct.value().has_type_index()) {
    const int64_t ti = ct.value().type_index();
    if (ti >= 0 && ti < x.struct_types_size()) return &x.struct_types(static_cast<int>(ti));
  }
  return nullptr;
}

Verdict RequiredFields(const vtensor::CompiledTensorProto& ct, DigestAlgorithm* algo) {
  if (ct.source_name().empty()) return Miss(MissReason::kMissingField, "field source_name is empty");
  if (!ct.has_value()) return Miss(MissReason::kMissingField, "field value is missing");
  if (!ct.has_device()) return Miss(MissReason::kMissingField, "field device is missing");
  if (ct.source_digest().empty())
    return Miss(MissReason::kMissingField, "field source_digest is empty");
  const auto a = DigestAlgorithmFromName(ct.digest_algorithm());
  if (!a)
    return Miss(MissReason::kUnknownDigestAlgorithm,
                "field digest_algorithm '" + ct.digest_algorithm() + "' is not blake3 or sha256");
  *algo = *a;
  if (ct.source_digest().size() != DigestLength(*a))
    return Miss(MissReason::kDigestLength,
                "field source_digest has " + std::to_string(ct.source_digest().size()) +
                    " bytes, " + ct.digest_algorithm() + " gives " +
                    std::to_string(DigestLength(*a)));
  if (!ct.value().has_raw_data() && !ct.value().has_external())
    return Miss(MissReason::kMissingField, "field value has no payload (raw_data or external)");
  return std::nullopt;
}

Verdict SingleSource(const vtensor::CompiledTensorProto& ct, const InitializerIndex& inits,
                     const Tensor** source) {
  const auto range = inits.by_name.equal_range(ct.source_name());
  const size_t count = static_cast<size_t>(std::distance(range.first, range.second));
  if (count == 0)
    return Miss(MissReason::kNoSuchInitializer,
                "no initializer or Constant value named '" + ct.source_name() + "'");
  if (count > 1)
    return Miss(MissReason::kAmbiguousSource, "'" + ct.source_name() + "' names initializers in " +
                                                  std::to_string(count) + " graphs");
  if (inits.overridable.count(ct.source_name()))
    return Miss(MissReason::kOverridableSource,
                "initializer '" + ct.source_name() +
                    "' is also a graph input and can be overridden at run time");
  *source = range.first->second;
  return std::nullopt;
}

Verdict CompatibleDevice(const vtensor::ModelExtension& x, const vtensor::CompiledTensorProto& ct,
                         IsaLevel isa) {
  if (ct.device() < 0 || ct.device() >= x.devices_size())
    return Miss(MissReason::kDeviceOutOfRange,
                "field device = " + std::to_string(ct.device()) + ", the model has " +
                    std::to_string(x.devices_size()) + " devices");
  const vtensor::DeviceProto& d = x.devices(ct.device());
  if (d.type() != "cpu")
    return Miss(MissReason::kOtherDeviceType, "device.type '" + d.type() + "' is not 'cpu'");
  if (d.runtime() != kRuntimeName)
    return Miss(MissReason::kOtherRuntime,
                "device.runtime '" + d.runtime() + "' is not '" + kRuntimeName + "'");
  if (d.runtime_version() != kPackedAbiVersion)
    return Miss(MissReason::kOtherAbi, "device.runtime_version '" + d.runtime_version() +
                                           "' differs from this runtime's packed ABI version '" +
                                           kPackedAbiVersion + "'");
  const std::string arch = IsaArchitecture(isa);
  if (d.architecture() != arch) {
    const auto want = IsaFromArchitecture(d.architecture());
    std::string why = "device.architecture '" + d.architecture() + "' ";
    if (!want) why += "is unknown";
    else if (!IsaSupported(*want)) why += "is not supported by this CPU";
    else why += "is not this session's kernel architecture '" + arch + "'";
    return Miss(MissReason::kOtherArchitecture, why);
  }
  return std::nullopt;
}

Verdict ValidStruct(const vtensor::ModelExtension& x, const vtensor::CompiledTensorProto& ct,
                    const vtensor::StructTypeProto* type, const Tensor& source, Layout* layout) {
  if (type == nullptr)
    return Miss(MissReason::kNoType,
                ct.value().has_type_index()
                    ? "value.type_index " + std::to_string(ct.value().type_index()) +
                          " is outside struct_types (" + std::to_string(x.struct_types_size()) + ")"
                    : "value has no type");
  const vtensor::StructTypeProto& t = *type;
  if (IsSymbolicType(t))
    return Miss(MissReason::kSymbolicType, "type '" + t.name() + "' has a symbolic dim");
  if (!t.has_layout()) return Miss(MissReason::kNoLayout, "type '" + t.name() + "' has no layout");
  auto l = LayoutFromProto(t.layout());
  if (!l.ok())
    return Miss(MissReason::kBadLayout, "type '" + t.name() + "' layout: " + l.status().message());
  if (l->shape() != source.shape())
    return Miss(MissReason::kShapeMismatch, "layout shape " + ShapeToString(l->shape()) +
                                                " differs from initializer shape " +
                                                ShapeToString(source.shape()));
  // The layout's storage comes first; further fields (per-channel scales) may follow.
  int64_t fields_end = l->StorageBytes();
  bool fields_ok = true;
  for (const auto& f : t.fields()) {
    auto fb = FieldBytes(f);
    if (!fb.ok() || f.offset() < 0) fields_ok = false;
    else fields_end = std::max(fields_end, f.offset() + *fb);
  }
  if (!fields_ok || t.byte_size() != fields_end)
    return Miss(MissReason::kByteSize, "type '" + t.name() + "' byte_size " +
                                           std::to_string(t.byte_size()) +
                                           " differs from the end of its layout and fields (" +
                                           std::to_string(fields_end) + ")");
  *layout = std::move(*l);
  return std::nullopt;
}

Verdict KnownForm(const vtensor::StructTypeProto& t) {
  const auto version = KnownWeightFormVersion(t.name());
  if (!version)
    return Miss(MissReason::kUnknownType, "type '" + t.name() + "' is not a form this runtime packs");
  if (*version != t.format_version())
    return Miss(MissReason::kUnknownVersion, "type '" + t.name() + "' format_version " +
                                                 std::to_string(t.format_version()) +
                                                 ", this runtime reads " + std::to_string(*version));
  return std::nullopt;
}

Verdict InlinePayload(const vtensor::CompiledTensorProto& ct, size_t want,
                      std::shared_ptr<const vtensor::ModelExtension> ext, Payload* out) {
  const std::string& raw = ct.value().raw_data();
  if (raw.size() != want)
    return Miss(MissReason::kPayloadSize, "raw_data has " + std::to_string(raw.size()) +
                                              " bytes, type needs " + std::to_string(want));
  out->data = reinterpret_cast<const uint8_t*>(raw.data());
  out->size = raw.size();
  out->keep_alive = std::move(ext);
  return std::nullopt;
}

Verdict ExternalPayload(const vtensor::CompiledTensorProto& ct, size_t want,
                        const std::string& model_dir,
                        std::map<std::string, std::shared_ptr<MappedFile>>* files, Payload* out) {
  const vtensor::ExternalPayloadProto& ep = ct.value().external();
  const std::string& loc = ep.location();
  if (loc.empty() || loc[0] == '/' || loc.find("..") != std::string::npos)
    return Miss(MissReason::kBadPayloadLocation,
                "value.external.location '" + loc +
                    "' must be a relative path inside the model directory");
  if (ep.offset() < 0 || ep.offset() % 64 != 0 || ep.length() < 0)
    return Miss(MissReason::kBadPayloadOffset, "value.external offset " +
                                                   std::to_string(ep.offset()) +
                                                   " must be a non-negative multiple of 64");
  if (static_cast<size_t>(ep.length()) != want)
    return Miss(MissReason::kPayloadSize, "value.external.length " + std::to_string(ep.length()) +
                                              ", type needs " + std::to_string(want));
  const std::string path = model_dir + "/" + loc;
  auto& slot = (*files)[path];
  if (!slot) {
    auto mf = MappedFile::Open(path);
    if (!mf.ok()) {
      files->erase(path);
      return Miss(mf.status().code() == StatusCode::kNotFound ? MissReason::kMissingPayloadFile
                                                              : MissReason::kPayloadUnreadable,
                  mf.status().message());
    }
    slot = *mf;
  }
  if (static_cast<uint64_t>(ep.offset()) + want > slot->size())
    return Miss(MissReason::kTruncatedPayload,
                "payload file '" + loc + "' has " + std::to_string(slot->size()) +
                    " bytes, the entry needs " + std::to_string(ep.offset() + ep.length()) +
                    " (truncated)");
  out->data = slot->data() + ep.offset();
  out->size = want;
  out->keep_alive = slot;
  out->mapped = true;
  return std::nullopt;
}

Verdict FreshSource(const Expected<std::string>& digest, const vtensor::CompiledTensorProto& ct,
                    DigestAlgorithm algo) {
  if (!digest.ok()) return Miss(MissReason::kStaleDigest, digest.status().message());
  if (*digest != ct.source_digest())
    return Miss(MissReason::kStaleDigest,
                "the source initializer's " + std::string(DigestAlgorithmName(algo)) +
                    " digest differs from source_digest (the entry is stale)");
  return std::nullopt;
}

Verdict PayloadIntact(const std::string* stored, const Status& check) {
  if (stored == nullptr)
    return Miss(MissReason::kNoPayloadDigest,
                std::string("metadata_props has no '") + kPayloadDigestKey + "'");
  if (!check.ok()) return Miss(MissReason::kPayloadDigest, check.message());
  return std::nullopt;
}

}  // namespace vt::loading
