// `vtensor inspect MODEL [--json]`: struct types, devices and compiled entries (source, device,
// type, payload bytes and location, digest algorithm) with layouts in text form
// (docs/layout-text-format.md).
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "tools/commands.h"
#include "vtensor/base/blake3.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/layout/layout_text.h"

namespace vt::cli {

namespace {

std::string LayoutText(const vtensor::StructTypeProto& t) {
  if (!t.has_layout()) return "(none)";
  if (IsSymbolicType(t)) return "(symbolic)";
  auto l = LayoutFromProto(t.layout());
  return l.ok() ? LayoutToText(*l) : "(invalid: " + l.status().message() + ")";
}

std::string Dims(const google::protobuf::RepeatedPtrField<vtensor::Dimension>& dims) {
  std::string s = "[";
  for (int i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i].has_dim_value() ? std::to_string(dims[i].dim_value()) : dims[i].dim_param();
  }
  return s + "]";
}

nlohmann::json TypeJson(const vtensor::StructTypeProto& t) {
  nlohmann::json fields = nlohmann::json::array();
  for (const auto& f : t.fields())
    fields.push_back({{"name", f.name()}, {"encoding", f.encoding()}, {"shape", Dims(f.shape())},
                      {"offset", f.offset()}, {"alignment", f.alignment()}});
  return {{"name", t.name()}, {"format_version", t.format_version()},
          {"layout", LayoutText(t)}, {"byte_size", t.byte_size()},
          {"fields", fields}, {"decoder", t.has_decoder()}};
}

}  // namespace

// --cache: loads the model as `run` would and reports every entry's HIT / MISS(reason).
int InspectCacheCommand(const InspectArgs& a) {
  auto so = MakeSessionOptions(a.session, 1);
  if (!so.ok()) {
    fmt::print(stderr, "error: {}\n", so.status().message());
    return 2;
  }
  so->cache_warning = nullptr;  // the report below says more than the warning
  auto s = Session::Load(a.model, *so);
  if (!s.ok()) {
    fmt::print(stderr, "error: {}\n", s.status().message());
    return 2;
  }
  if (a.session.verbose) PrintLoadDecisions(**s, stderr);
  if (a.json) {
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& r : (*s)->cache_report())
      entries.push_back({{"index", r.index}, {"source_name", r.source_name},
                         {"architecture", r.architecture}, {"type", r.type_name},
                         {"state", r.state == EntryState::kHit ? "HIT" : "MISS"},
                         {"reason", MissReasonCode(r.reason)}, {"detail", r.detail},
                         {"payload_bytes", r.payload_bytes}, {"verified", r.verified},
                         {"compared", r.compared}, {"memo", r.memo}});
    nlohmann::json j = {{"model", a.model},
                        {"architecture", IsaArchitecture(so->isa)},
                        {"profile", WeightProfileName(so->profile)},
                        {"verify", VerifyPolicyName(so->cache.verify)},
                        {"entries", entries}};
    const CacheEntryReport& p = (*s)->plan_report();
    if (p.state == EntryState::kPending)
      j["session_plan"] = nullptr;
    else
      j["session_plan"] = {{"index", p.index}, {"type", p.type_name},
                           {"state", p.state == EntryState::kHit ? "HIT" : "MISS"},
                           {"reason", MissReasonCode(p.reason)}, {"detail", p.detail},
                           {"payload_bytes", p.payload_bytes}, {"location", p.location},
                           {"verified", p.verified}, {"memo", p.memo}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("model: {}\narchitecture: {}  profile: {}  verify: {}\n", a.model,
             IsaArchitecture(so->isa), WeightProfileName(so->profile),
             VerifyPolicyName(so->cache.verify));
  if (a.session.explain) PrintExplain(**s, stdout);
  else PrintCacheReport(**s, stdout);
  return 0;
}

int InspectCommand(const InspectArgs& a) {
  if (a.cache) return InspectCacheCommand(a);
  auto m = ReadCompiledModel(a.model);
  if (!m.ok()) {
    fmt::print(stderr, "error: {}\n", m.status().message());
    return 2;
  }
  const auto& ext = m->ext;
  nlohmann::json types = nlohmann::json::array(), devices = nlohmann::json::array(),
                 entries = nlohmann::json::array();
  for (const auto& t : ext.struct_types()) types.push_back(TypeJson(t));
  for (const auto& d : ext.devices()) {
    nlohmann::json meta = nlohmann::json::object();
    for (const auto& kv : d.metadata_props()) meta[kv.key()] = kv.value();
    devices.push_back({{"type", d.type()}, {"architecture", d.architecture()},
                       {"runtime", d.runtime()}, {"runtime_version", d.runtime_version()},
                       {"metadata", meta}});
    if (d.has_index()) devices.back()["index"] = d.index();
  }
  for (const auto& e : ext.compiled_tensors()) {
    const auto& v = e.value();
    nlohmann::json j = {{"source_name", e.source_name()}, {"device", e.device()},
                        {"digest_algorithm", e.digest_algorithm()},
                        {"source_digest", ToHex(reinterpret_cast<const uint8_t*>(e.source_digest().data()),
                                                e.source_digest().size())}};
    if (v.has_struct_type()) j["type"] = TypeJson(v.struct_type());
    else if (v.has_type_index()) j["type_index"] = v.type_index();
    if (v.has_raw_data()) {
      j["payload"] = {{"bytes", v.raw_data().size()}, {"location", "inline"}};
    } else if (v.has_external()) {
      j["payload"] = {{"bytes", v.external().length()}, {"location", v.external().location()},
                      {"offset", v.external().offset()}};
    }
    entries.push_back(j);
  }
  nlohmann::json plans = nlohmann::json::array();
  for (const auto& p : ext.session_plans()) {
    nlohmann::json j = {{"format_version", p.format_version()},
                        {"runtime_version", p.runtime_version()},
                        {"options", p.options()},
                        {"graph_digest", p.graph_digest()},
                        {"initializer_digest", p.initializer_digest()},
                        {"binds_dim_params", p.binds_dim_params()},
                        {"payload_digest", p.payload_digest()}};
    if (p.has_raw_data()) j["payload"] = {{"bytes", p.raw_data().size()}, {"location", "inline"}};
    else if (p.has_external())
      j["payload"] = {{"bytes", p.external().length()}, {"location", p.external().location()},
                      {"offset", p.external().offset()}};
    plans.push_back(j);
  }
  if (a.json) {
    nlohmann::json j = {{"model", a.model}, {"struct_types", types}, {"devices", devices},
                        {"compiled_tensors", entries}, {"session_plans", plans}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("model: {}\n", a.model);
  fmt::print("struct types: {}\n", ext.struct_types_size());
  for (int i = 0; i < ext.struct_types_size(); ++i) {
    const auto& t = ext.struct_types(i);
    fmt::print("  [{}] {} v{}  {} bytes  {}\n", i, t.name(), t.format_version(), t.byte_size(),
               LayoutText(t));
    for (const auto& f : t.fields())
      fmt::print("      field {} {}{} @{} align {}\n", f.name(), f.encoding(), Dims(f.shape()),
                 f.offset(), f.alignment());
  }
  fmt::print("devices: {}\n", ext.devices_size());
  for (int i = 0; i < ext.devices_size(); ++i) {
    const auto& d = ext.devices(i);
    fmt::print("  [{}] {} {} {} {}\n", i, d.type(), d.architecture(), d.runtime(), d.runtime_version());
  }
  fmt::print("compiled tensors: {}\n", ext.compiled_tensors_size());
  for (int i = 0; i < ext.compiled_tensors_size(); ++i) {
    const auto& e = ext.compiled_tensors(i);
    const auto& v = e.value();
    std::string type, layout;
    if (v.has_struct_type()) {
      type = v.struct_type().name() + " (inline)";
      layout = LayoutText(v.struct_type());
    } else if (v.has_type_index() && v.type_index() >= 0 && v.type_index() < ext.struct_types_size()) {
      const auto& t = ext.struct_types(static_cast<int>(v.type_index()));
      type = t.name() + " (#" + std::to_string(v.type_index()) + ")";
      layout = LayoutText(t);
    } else {
      type = "(unresolved)";
    }
    std::string payload = v.has_raw_data() ? std::to_string(v.raw_data().size()) + " bytes inline"
                          : v.has_external()
                              ? std::to_string(v.external().length()) + " bytes in " +
                                    v.external().location() + " @" + std::to_string(v.external().offset())
                              : "(none)";
    fmt::print("  [{}] {} -> device {}  type {}  {}  digest {}\n", i, e.source_name(), e.device(),
               type, payload, e.digest_algorithm());
    fmt::print("      layout {}\n", layout);
  }
  fmt::print("session plans: {}\n", plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    const auto& p = plans[i];
    fmt::print("  [{}] v{} {}  {}  {} bytes {}\n      graph {}  initializers {}\n", i,
               p["format_version"].get<int64_t>(), p["runtime_version"].get<std::string>(),
               p["options"].get<std::string>(),
               p.contains("payload") ? p["payload"]["bytes"].get<int64_t>() : 0,
               p.contains("payload") ? p["payload"]["location"].get<std::string>() : "(none)",
               p["graph_digest"].get<std::string>(), p["initializer_digest"].get<std::string>());
  }
  return 0;
}

}  // namespace vt::cli
