#include "vtensor/passes/capture.h"

#include <map>

#include "vtensor/format/compiled_model.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/graph/tensor_meta.h"

namespace vt {

namespace {

Status CaptureGraph(Graph& g) {
  // Initializers sharing one storage: the first (by name) owns it, the others alias it.
  std::map<const Storage*, std::string> owner_of;
  for (auto& [name, t] : g.initializers) {
    TensorSpec& spec = g.values[name];
    if (spec.type().kind == TypeInfo::Kind::kUnknown) {
      SymShape s;
      for (int64_t d : t.shape()) s.push_back(Dim{d, ""});
      spec.mutable_type() = TypeInfo::Tensor(t.dtype(), s);
    }
    if (!spec.identity()) spec.set_identity(t.name().empty() ? name : t.name());
    const std::optional<Encoding> enc = EncodingFromDType(t.dtype());
    if (enc && !TensorEncoding(spec)) SetTensorEncoding(spec, *enc);
    if (!t.defined()) continue;
    if (t.storage()) {
      auto [it, fresh] = owner_of.emplace(t.storage().get(), name);
      if (!fresh && !TensorAliasOf(spec)) SetTensorAliasOf(spec, it->second);
    }
    if (!t.is_contiguous() && !HasTensorLayout(spec) && enc) {
      const Layout& l = t.layout();
      if (l.is_strided()) {
        VT_ASSIGN_OR_RETURN(Layout typed, Layout::Strided(l.shape(), l.strides(), l.offset(), *enc));
        SetTensorLayout(spec, typed, kLayoutOriginCapture);
      } else {
        SetTensorLayout(spec, l, kLayoutOriginCapture);
      }
    }
  }
  for (auto& n : g.nodes)
    for (auto& [an, a] : n.attrs) {
      if (a.g) VT_RETURN_IF_ERROR(CaptureGraph(*a.g));
      for (auto& sg : a.graphs) VT_RETURN_IF_ERROR(CaptureGraph(*sg));
    }
  return Status::Ok();
}

}  // namespace

Status CaptureTensorMeta(Model& model) {
  if (!model.graph) return Status::Ok();
  return CaptureGraph(*model.graph);
}

size_t AttachCompiledEntries(Model& model, const vtensor::ModelExtension& ext) {
  if (!model.graph) return 0;
  Graph& g = *model.graph;
  size_t attached = 0;
  for (const auto& ct : ext.compiled_tensors()) {
    if (!g.initializers.count(ct.source_name())) continue;
    if (ct.device() < 0 || ct.device() >= ext.devices_size()) continue;
    const std::string& arch = ext.devices(ct.device()).architecture();
    if (arch.empty() || !ct.has_value()) continue;
    const vtensor::StructTypeProto* type = nullptr;
    if (ct.value().has_struct_type()) {
      type = &ct.value().struct_type();
    } else if (ct.value().has_type_index()) {
      const int64_t i = ct.value().type_index();
      if (i >= 0 && i < ext.struct_types_size()) type = &ext.struct_types(static_cast<int>(i));
    }
    if (type == nullptr || !type->has_layout()) continue;
    auto layout = LayoutFromProto(type->layout());
    if (!layout.ok() || layout->shape() != g.initializers.at(ct.source_name()).shape()) continue;
    TensorSpec& spec = g.values[ct.source_name()];
    auto existing = CompiledLayout(spec, arch);
    if (existing.ok() && existing->has_value()) continue;  // the first entry per architecture
    SetCompiledLayout(spec, arch, *layout);
    ++attached;
  }
  return attached;
}

Expected<Model> LoadModelForCompile(const std::string& path) {
  VT_ASSIGN_OR_RETURN(Model m, LoadModel(path));
  VT_RETURN_IF_ERROR(CaptureTensorMeta(m));
  auto cm = ReadCompiledModel(path);
  if (cm.ok()) AttachCompiledEntries(m, cm->ext);
  return m;
}

}  // namespace vt
