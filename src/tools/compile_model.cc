#include "tools/compile_model.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "vtensor/base/file.h"
#include "vtensor/base/temp_file.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/format/model_skeleton.h"
#include "vtensor/graph/plan_graph.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/format/payload_digest.h"
#include "vtensor/forms/weight_use.h"
#include "vtensor/runtime/session.h"
#include "vtensor/runtime/session_plan.h"
#include "tools/payload_writer.h"

namespace vt {

namespace {

// metadata_props key naming the profile an entry was compiled under ("exact" / "compact").
constexpr const char kProfileKey[] = "vt.profile";

std::string BaseName(const std::string& p) {
  const size_t s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// Refuses, before any work, an OUT that cannot become a file: an existing directory, or one
// whose directory does not exist.
Status CheckOutputPath(const std::string& out) {
  struct stat st {};
  if (::stat(out.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return InvalidArgument("compile: -o '" + out + "' is a directory; name the output model file "
                           "(e.g. " + JoinPath(out, "model.vt.onnx") + ")");
  const std::string dir = DirName(out);
  if (::stat(dir.c_str(), &st) != 0)
    return IoError("compile: cannot write '" + out + "': directory '" + dir + "' " +
                   (errno == ENOENT ? std::string("does not exist") : std::strerror(errno)));
  if (!S_ISDIR(st.st_mode))
    return IoError("compile: cannot write '" + out + "': '" + dir + "' is not a directory");
  return Status::Ok();
}

Status CopyFile(const std::string& from, const std::string& to) {
  VT_ASSIGN_OR_RETURN(auto mf, MappedFile::Open(from));
  return WriteFileAtomic(to, std::string_view(reinterpret_cast<const char*>(mf->data()), mf->size()));
}

// Calls `f` on `g` and every subgraph (If/Loop/Scan bodies) inside it.
void ForEachGraph(const onnx::GraphProto& g, const std::function<void(const onnx::GraphProto&)>& f) {
  f(g);
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) ForEachGraph(a.g(), f);
      for (const auto& sg : a.graphs()) ForEachGraph(sg, f);
    }
}

}  // namespace

// Names of the tensors a compiled entry may cache (docs/design.md §4: the source resolves to an
// initializer): initializers and Constant-node values of every graph. The tensors the passes
// make from them are cached as well (CompileForDevice), but are no sources.
std::vector<SourceTensor> CacheableSources(const onnx::GraphProto& main) {
  std::vector<SourceTensor> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& name, const onnx::TensorProto* t) {
    if (seen.insert(name).second) out.push_back({name, t});
  };
  ForEachGraph(main, [&](const onnx::GraphProto& g) {
    for (const auto& t : g.initializer()) add(t.name(), &t);
    for (const auto& n : g.node())
      if (n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx") &&
          n.output_size() == 1)
        for (const auto& a : n.attribute())
          if (a.name() == "value" && a.has_t()) add(n.output(0), &a.t());
  });
  return out;
}

namespace {

// External data locations of every initializer.
std::set<std::string> ExternalLocations(const onnx::GraphProto& main) {
  std::set<std::string> out;
  ForEachGraph(main, [&](const onnx::GraphProto& g) {
    for (const auto& t : g.initializer())
      if (t.data_location() == onnx::TensorProto::EXTERNAL)
        for (const auto& kv : t.external_data())
          if (kv.key() == "location") out.insert(kv.value());
  });
  return out;
}

std::set<std::string> SourceNames(const onnx::GraphProto& main) {
  std::set<std::string> out;
  for (const SourceTensor& t : CacheableSources(main)) out.insert(t.name);
  return out;
}

// Weights the packing kernels read (the weight-use table's consumers, forms/weight_use.h) among
// `sources`: the progress bar's total (a weight no form applies to is skipped, so this is an
// upper bound).
size_t CountPackedWeights(const onnx::GraphProto& main, const std::set<std::string>& sources) {
  std::set<std::string> weights;
  ForEachGraph(main, [&](const onnx::GraphProto& g) {
    for (const auto& n : g.node())
      for (int i = 0; i < n.input_size(); ++i)
        if (FindWeightConsumer(n.domain(), n.op_type(), static_cast<size_t>(i)) &&
            sources.count(n.input(i)))
          weights.insert(n.input(i));
  });
  return weights.size();
}

// `to` exists beside OUT but is another file than MODEL's external data `from`.
Status NotTheExternalData(const std::string& to, const std::string& from, const std::string& model) {
  return InvalidArgument("'" + to + "' exists and is not the external data file '" + from +
                         "' that " + model + " references; write OUT beside MODEL or remove it");
}

// Makes MODEL's external data files resolvable from OUT's directory.
Status LinkExternalData(const CompiledModel& m, const std::string& out_path) {
  const std::string src_dir = DirName(m.path), dst_dir = DirName(out_path);
  if (SameFile(src_dir, dst_dir)) return Status::Ok();
  const std::set<std::string> locs = ExternalLocations(m.model->graph());

  for (const auto& loc : locs) {
    const std::string from = JoinPath(src_dir, loc), to = JoinPath(dst_dir, loc);
    if (SameFile(from, to)) continue;
    struct stat st;
    if (::stat(to.c_str(), &st) == 0) return NotTheExternalData(to, from, m.path);
    if (loc.find('/') != std::string::npos)
      return InvalidArgument(fmt::format("{}: external data location '{}' is in a subdirectory; "
                                         "write OUT in MODEL's directory",
                                         m.path, loc));
    if (::link(from.c_str(), to.c_str()) != 0) VT_RETURN_IF_ERROR(CopyFile(from, to));
  }
  return Status::Ok();
}

// One compile: the extension being built, where payloads go and what was written.
struct CompileState {
  const CompileModelOptions& opts;
  vtensor::ModelExtension ext;
  std::unique_ptr<PayloadWriter> writer;  // null: payloads inline
  std::string payload_name;               // the payload file's name beside OUT
  CompileModelSummary sum;
  size_t done = 0, total = 0;             // weights packed / to pack (progress)
  // OUT's ModelProto bytes (its part before fields 27-30) and where its source tensors' bytes
  // stand in them: the plans' source lists (runtime/session_plan.h MakeSessionPlan).
  std::string model_bytes;
  std::optional<SourceSpans> spans;
};

// The entries of MODEL that this compile does not replace (other architectures or profiles),
// with their devices and types re-indexed. Their external payloads are copied into the new
// payload file (OUT may overwrite the old one); damaged entries are dropped.
Status KeepOtherEntries(const vtensor::ModelExtension& old, const std::string& model_path,
                        const std::set<std::string>& archs, CompileState* st) {
  std::map<int, int> dev_map, type_map;
  vtensor::ModelExtension& ext = st->ext;
  for (const auto& ct : old.compiled_tensors()) {
    if (ct.device() < 0 || ct.device() >= old.devices_size()) continue;
    const auto& dev = old.devices(ct.device());
    std::string profile = "exact";
    for (const auto& kv : ct.metadata_props())
      if (kv.key() == kProfileKey) profile = kv.value();
    if (archs.count(dev.architecture()) && dev.runtime() == kRuntimeName &&
        profile == WeightProfileName(st->opts.profile))
      continue;  // replaced by this compile
    auto [it, fresh] = dev_map.emplace(ct.device(), ext.devices_size());
    if (fresh) *ext.add_devices() = dev;
    vtensor::CompiledTensorProto copy = ct;
    copy.set_device(it->second);
    if (ct.value().has_type_index()) {
      const int ti = static_cast<int>(ct.value().type_index());
      if (ti < 0 || ti >= old.struct_types_size()) continue;
      auto [tt, tfresh] = type_map.emplace(ti, ext.struct_types_size());
      if (tfresh) *ext.add_struct_types() = old.struct_types(ti);
      copy.mutable_value()->set_type_index(tt->second);
    }
    if (ct.value().has_external()) {
      const auto& x = ct.value().external();
      const std::string from = JoinPath(DirName(model_path), x.location());
      auto mf = MappedFile::Open(from);
      if (!mf.ok() || x.offset() < 0 || x.length() < 0 ||
          static_cast<uint64_t>(x.offset() + x.length()) > (*mf)->size())
        continue;  // a damaged entry is not carried over
      const uint8_t* bytes = (*mf)->data() + x.offset();
      if (st->writer) {
        VT_ASSIGN_OR_RETURN(uint64_t off,
                            st->writer->Append(bytes, static_cast<size_t>(x.length())));
        auto* nx = copy.mutable_value()->mutable_external();
        nx->set_location(st->payload_name);
        nx->set_offset(static_cast<int64_t>(off));
      } else {
        copy.mutable_value()->set_raw_data(bytes, static_cast<size_t>(x.length()));
      }
    }
    *ext.add_compiled_tensors() = std::move(copy);
    ++st->sum.kept_entries;
  }
  return Status::Ok();
}

// Index of the (last) device entry for `isa` in `ext`, added when absent.
int DeviceIndex(vtensor::ModelExtension* ext, IsaLevel isa) {
  vtensor::DeviceProto dev;
  dev.set_type("cpu");
  dev.set_architecture(IsaArchitecture(isa));
  dev.set_runtime(kRuntimeName);
  dev.set_runtime_version(kPackedAbiVersion);
  for (int i = ext->devices_size() - 1; i >= 0; --i)
    if (ext->devices(i).SerializeAsString() == dev.SerializeAsString()) return i;
  *ext->add_devices() = std::move(dev);
  return ext->devices_size() - 1;
}

// Index of the (last) struct type equal to `type` in `ext`, added when absent.
int StructTypeIndex(vtensor::ModelExtension* ext, vtensor::StructTypeProto type) {
  for (int i = ext->struct_types_size() - 1; i >= 0; --i)
    if (ext->struct_types(i).SerializeAsString() == type.SerializeAsString()) return i;
  *ext->add_struct_types() = std::move(type);
  return ext->struct_types_size() - 1;
}

// One compiled entry for weight `name` packed as `w` (struct type `ti`, device `dev_index`).
Status AddEntry(CompileState* st, const std::string& name, const std::string& digest,
                int dev_index, int ti, const PreparedWeight& w) {
  auto* e = st->ext.add_compiled_tensors();
  e->set_source_name(name);
  e->set_device(dev_index);
  e->set_source_digest(digest);
  e->set_digest_algorithm(DigestAlgorithmName(st->opts.digest));
  auto add_prop = [e](const std::string& key, const std::string& value) {
    auto* kv = e->add_metadata_props();
    kv->set_key(key);
    kv->set_value(value);
  };
  add_prop(kPayloadDigestKey, PayloadDigest(w.bytes.data, w.bytes.size));
  add_prop("vt.kernel", w.form.kernel);
  add_prop(kProfileKey, WeightProfileName(st->opts.profile));
  auto* v = e->mutable_value();
  v->set_type_index(ti);
  if (st->writer) {
    VT_ASSIGN_OR_RETURN(uint64_t off, st->writer->Append(w.bytes.data, w.bytes.size));
    auto* x = v->mutable_external();
    x->set_location(st->payload_name);
    x->set_offset(static_cast<int64_t>(off));
    x->set_length(static_cast<int64_t>(w.bytes.size));
  } else {
    v->set_raw_data(w.bytes.data, w.bytes.size);
  }
  ++st->sum.entries;
  st->sum.payload_bytes += w.bytes.size;
  ++st->done;
  if (st->opts.progress)
    st->opts.progress(std::min(st->done, st->total), st->total, st->sum.payload_bytes);
  return Status::Ok();
}

// Stores a plan's payload in the payload file (when there is one) instead of inline.
Status PlacePlanPayload(vtensor::SessionPlanProto* plan, CompileState* st) {
  if (!st->writer || !plan->has_raw_data()) return Status::Ok();
  const std::string bytes = plan->raw_data();
  VT_ASSIGN_OR_RETURN(uint64_t off, st->writer->Append(
                                        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  auto* x = plan->mutable_external();  // clears raw_data (one payload)
  x->set_location(st->payload_name);
  x->set_offset(static_cast<int64_t>(off));
  x->set_length(static_cast<int64_t>(bytes.size()));
  return Status::Ok();
}

// The session plan of `planned` (a session of MODEL after its passes), keyed by MODEL's graph
// as a session imports it (runtime/session_plan.h).
Status AddSessionPlan(const std::string& model_path, const Session& planned, CompileState* st) {
  ImportOptions io;
  io.infer_shapes = false;  // as Session::Load imports
  VT_ASSIGN_OR_RETURN(Model source, LoadModel(model_path, io));
  // Only spans holding the very bytes of the imported tensor.
  std::optional<SourceSpans> spans = st->spans;
  if (spans) {
    const std::map<std::string, Tensor> tensors = SourceTensors(*source.graph);
    std::erase_if(spans->in_file, [&](const auto& kv) {
      auto it = tensors.find(kv.first);
      if (it == tensors.end() || it->second.dtype() == DType::kString ||
          it->second.nbytes() != kv.second.length)
        return true;
      const Tensor c = it->second.Contiguous();
      return std::memcmp(c.raw_data(), st->model_bytes.data() + kv.second.offset, c.nbytes()) != 0;
    });
  }
  VT_ASSIGN_OR_RETURN(vtensor::SessionPlanProto plan,
                      MakeSessionPlan(source, planned, spans ? &*spans : nullptr));
  VT_RETURN_IF_ERROR(PlacePlanPayload(&plan, st));
  *st->ext.add_session_plans() = std::move(plan);
  ++st->sum.plans;
  return Status::Ok();
}

// Whether MODEL's file begins with `bytes` (its ModelProto part as OUT will hold it).
bool SameModelBytes(const std::string& model_path, const std::string& bytes) {
  auto mf = MappedFile::Open(model_path);
  return mf.ok() && (*mf)->size() >= bytes.size() &&
         std::memcmp((*mf)->data(), bytes.data(), bytes.size()) == 0;
}

// A plan without its source list (its byte ranges are of another file): a hit then imports
// the source tensors from the graph.
void DropSourceList(vtensor::SessionPlanProto* p) {
  auto* props = p->mutable_metadata_props();
  for (int i = props->size() - 1; i >= 0; --i)
    if (props->Get(i).key() == kPlanSourcesKey) props->DeleteSubrange(i, 1);
}

// The plans of MODEL made for other options than this compile's (other devices or profiles),
// their payloads copied as the kept compiled entries' are; damaged ones are dropped.
void KeepOtherPlans(const vtensor::ModelExtension& old, const std::string& model_path,
                    const std::set<std::string>& replaced, CompileState* st) {
  for (const auto& p : old.session_plans()) {
    if (replaced.count(p.options())) continue;
    vtensor::SessionPlanProto copy = p;
    if (!SameModelBytes(model_path, st->model_bytes)) DropSourceList(&copy);
    if (p.has_external()) {
      const auto& x = p.external();
      auto mf = MappedFile::Open(JoinPath(DirName(model_path), x.location()));
      if (!mf.ok() || x.offset() < 0 || x.length() < 0 ||
          static_cast<uint64_t>(x.offset() + x.length()) > (*mf)->size())
        continue;
      copy.set_raw_data((*mf)->data() + x.offset(), static_cast<size_t>(x.length()));
      if (!PlacePlanPayload(&copy, st).ok()) continue;
    }
    *st->ext.add_session_plans() = std::move(copy);
  }
}

// Creates a prepare-only session of MODEL for `isa`; every weight it packs becomes an entry
// (once per form): the source tensors (`sources`) and the tensors its passes made from them
// (folded constants, Conv weights with a BatchNormalization folded in), which a session plan
// hit, or the same passes, give the session again (docs/compiled-tensors.md, "Tensors the
// passes make").
Status CompileForDevice(const std::string& model_path, IsaLevel isa,
                        const std::set<std::string>& sources, CompileState* st) {
  const int dev_index = DeviceIndex(&st->ext, isa);
  // Entries kept from MODEL (another profile) that already hold a form: not written twice.
  std::set<std::pair<std::string, int>> present;
  for (const auto& ct : st->ext.compiled_tensors())
    if (ct.device() == dev_index && ct.value().has_type_index())
      present.emplace(ct.source_name(), static_cast<int>(ct.value().type_index()));

  Status failure;
  std::set<std::tuple<std::string, std::string, uint64_t>> seen;
  auto observe = [&](const std::string& name, const Tensor& src, const PreparedWeight& w) {
    if (!failure.ok()) return;
    if (!seen.emplace(name, w.form.type_name, w.form.layout.Hash()).second) return;
    if (!sources.count(name)) ++st->total;  // the progress total counts the sources' weights
    if (!w.form.lossless) ++st->sum.lossy[w.form.type_name];
    auto digest = TensorDigest(src, st->opts.digest);
    if (!digest.ok()) {
      failure = digest.take_status().WithContext("weight '" + name + "'");
      return;
    }
    const int ti = StructTypeIndex(&st->ext, StructTypeForForm(w.form));
    if (present.count({name, ti})) return;  // same form already stored by another profile
    failure = AddEntry(st, name, *digest, dev_index, ti, w);
  };
  auto s = PrepareWeights(model_path, isa, st->opts.profile, observe);
  if (!s.ok())
    return s.take_status().WithContext("compile for " + std::string(IsaArchitecture(isa)));
  VT_RETURN_IF_ERROR(failure);
  return AddSessionPlan(model_path, **s, st);
}

}  // namespace

Expected<std::unique_ptr<Session>> PrepareWeights(const std::string& model_path, IsaLevel isa,
                                                  WeightProfile profile, WeightObserver observer) {
  ImportOptions io;
  io.infer_shapes = false;
  VT_ASSIGN_OR_RETURN(Model model, LoadModel(model_path, io));
  SessionOptions so;
  so.isa = isa;
  so.profile = profile;
  so.cache.enabled = false;
  so.prepare_only = true;
  so.weight_observer = std::move(observer);
  return Session::Create(std::move(model), so, nullptr);
}

Status CompileModel(const std::string& model_path, const std::string& out_path,
                    const CompileModelOptions& opts, CompileModelSummary* summary) {
  if (opts.devices.empty()) return InvalidArgument("compile: no --device given");
  VT_RETURN_IF_ERROR(CheckOutputPath(out_path));
  if (SameFile(model_path, out_path))
    return InvalidArgument("compile: OUT '" + out_path + "' is MODEL itself; the source model is "
                           "never modified in place");
  VT_ASSIGN_OR_RETURN(CompiledModel cm, ReadCompiledModel(model_path));
  const std::set<std::string> sources = SourceNames(cm.model->graph());
  std::vector<IsaLevel> devices;
  for (IsaLevel d : opts.devices)
    if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);

  CompileState st{opts, {}, nullptr, BaseName(out_path) + ".vtpack", {}, 0, 0, {}, std::nullopt};
  st.total = CountPackedWeights(cm.model->graph(), sources) * devices.size();
  if (opts.external_payload) {
    st.sum.payload_file = JoinPath(DirName(out_path), st.payload_name);
    VT_ASSIGN_OR_RETURN(st.writer, PayloadWriter::Open(st.sum.payload_file));
  }
  std::set<std::string> archs;
  for (IsaLevel d : devices) archs.insert(IsaArchitecture(d));
  VT_RETURN_IF_ERROR(KeepOtherEntries(cm.ext, model_path, archs, &st));
  std::set<std::string> plan_options;
  for (IsaLevel d : devices) {
    SessionOptions so;
    so.isa = d;
    so.profile = opts.profile;
    plan_options.insert(SessionPlanOptions(so));
  }
  // OUT holds cm.model serialized as here (SerializeCompiledModel); a plan kept from MODEL
  // keeps its source list only where MODEL holds the same bytes.
  if (!cm.model->SerializeToString(&st.model_bytes))
    return InvalidArgument(model_path + ": model cannot be serialized (over 2 GiB?)");
  VT_ASSIGN_OR_RETURN(SourceSpans spans,
                      SourcePayloadSpans(reinterpret_cast<const uint8_t*>(st.model_bytes.data()),
                                         st.model_bytes.size(), model_path));
  st.spans = std::move(spans);
  KeepOtherPlans(cm.ext, model_path, plan_options, &st);
  for (IsaLevel isa : devices) VT_RETURN_IF_ERROR(CompileForDevice(model_path, isa, sources, &st));

  VT_RETURN_IF_ERROR(LinkExternalData(cm, out_path));
  cm.ext = std::move(st.ext);
  // Both files are written in full before either is published, and the payload goes first so
  // the model never names missing bytes: a kill at any point leaves no partial file, and only
  // one between the two renames leaves OUT.vtpack without OUT.
  VT_ASSIGN_OR_RETURN(std::string bytes, SerializeCompiledModel(cm));
  // The plans' source lists name byte ranges of these very bytes.
  if (bytes.compare(0, st.model_bytes.size(), st.model_bytes) != 0)
    return Internal(out_path + ": the model's bytes differ from those the session plans' source "
                               "lists were made for");
  VT_ASSIGN_OR_RETURN(auto model_file, TempFile::Create(out_path));
  VT_RETURN_IF_ERROR(model_file->Write(bytes.data(), bytes.size()));
  if (st.writer) VT_RETURN_IF_ERROR(st.writer->Commit());
  Status written = model_file->Publish();
  if (!written.ok()) {
    if (st.writer) st.writer->Discard();
    return written;
  }
  if (summary) *summary = st.sum;
  return Status::Ok();
}

Expected<CompileModelOptions> CompileOptionsFromNames(const std::vector<std::string>& devices,
                                                      const std::string& profile,
                                                      const std::string& payload,
                                                      const std::string& algo) {
  CompileModelOptions o;
  for (const auto& d : devices.empty() ? std::vector<std::string>{"native"} : devices) {
    auto isa = IsaFromArchitecture(d);
    if (!isa)
      return InvalidArgument("--device '" + d +
                             "': expected native, x86_64-avx512, x86_64-avx2 or x86_64-baseline");
    if (std::find(o.devices.begin(), o.devices.end(), *isa) == o.devices.end())
      o.devices.push_back(*isa);
  }
  auto p = WeightProfileFromName(profile);
  if (!p) return InvalidArgument("--profile '" + profile + "': expected exact or compact");
  o.profile = *p;
  if (payload != "external" && payload != "inline")
    return InvalidArgument("--payload '" + payload + "': expected external or inline");
  o.external_payload = payload == "external";
  auto a = DigestAlgorithmFromName(algo);
  if (!a) return InvalidArgument("--algo '" + algo + "': expected blake3 or sha256");
  o.digest = *a;
  return o;
}

}  // namespace vt
