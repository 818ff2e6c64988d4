#include "vtensor/export/json_export.h"

#include <cmath>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "vtensor/graph/tensor_meta.h"

namespace vt {

namespace {

using Json = nlohmann::ordered_json;

Json FloatJson(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

Json LayoutJson(const Layout& l) {
  const LayoutFacts f = DescribeLayout(l);
  Json j;
  j["version"] = f.version;
  j["text"] = f.text;
  j["shape"] = f.shape;
  j["encoding"] = f.encoding;
  j["block_elems"] = f.block_elems;
  j["block_bytes"] = f.block_bytes;
  j["scale_placement"] = f.scale_placement;
  j["scale_type"] = f.scale_type;
  j["zero_point"] = f.zero_point;
  j["block_order"] = f.block_order;
  j["form"] = f.form;
  if (f.form == "strided") j["strides"] = f.strides;
  Json levels = Json::array();
  for (const auto& lv : f.levels) levels.push_back({{"dim", lv.dim}, {"tile", lv.tile}, {"stride", lv.stride}});
  j["levels"] = levels;
  j["padded"] = f.padded;
  j["offset"] = f.offset;
  j["storage_bytes"] = f.storage_bytes;
  return j;
}

const char* KindName(TypeInfo::Kind k) {
  switch (k) {
    case TypeInfo::Kind::kTensor: return "tensor";
    case TypeInfo::Kind::kSequence: return "sequence";
    case TypeInfo::Kind::kOptional: return "optional";
    case TypeInfo::Kind::kMap: return "map";
    default: return "unknown";
  }
}

Json ShapeJson(const std::optional<SymShape>& s) {
  if (!s) return nullptr;
  Json j = Json::array();
  for (const Dim& d : *s) {
    if (d.known()) j.push_back(d.value);
    else if (!d.param.empty()) j.push_back(d.param);
    else j.push_back(nullptr);
  }
  return j;
}

const TensorSpec* FindSpec(const Graph& g, const std::string& name) {
  for (const Graph* s = &g; s != nullptr; s = s->parent) {
    auto it = s->values.find(name);
    if (it != s->values.end()) return &it->second;
  }
  return nullptr;
}

Expected<Json> ValueJson(const std::string& name, const TensorSpec* spec) {
  Json j;
  j["name"] = name;
  if (spec == nullptr) {
    j["type"] = "unknown";
    return j;
  }
  const TypeInfo& t = spec->type();
  j["type"] = KindName(t.kind);
  if (t.kind == TypeInfo::Kind::kTensor) {
    j["dtype"] = DTypeName(t.elem);
    j["shape"] = ShapeJson(t.shape);
  } else if (t.inner) {
    j["element"] = t.inner->ToString();
  }
  if (auto id = spec->identity()) j["identity"] = *id;
  if (auto e = TensorEncoding(*spec)) j["encoding"] = GetEncodingTraits(*e).name;
  if (auto a = TensorAliasOf(*spec)) j["alias_of"] = *a;
  auto layout = TensorLayout(*spec);
  if (!layout.ok()) return layout.take_status().WithContext("value '" + name + "'");
  if (layout->has_value()) {
    j["layout"] = LayoutJson(**layout);
    j["layout_origin"] = TensorLayoutOrigin(*spec);
  }
  const std::vector<std::string> archs = CompiledArchitectures(*spec);
  if (!archs.empty()) {
    Json c;
    for (const auto& a : archs) {
      auto cl = CompiledLayout(*spec, a);
      if (!cl.ok()) return cl.take_status().WithContext("value '" + name + "'");
      c[a] = LayoutJson(**cl);
    }
    j["compiled"] = c;
  }
  Json other;
  for (const auto& [k, v] : spec->metadata()) {
    if (k == kMetaIdentity || k == kMetaEncoding || k == kMetaLayout || k == kMetaLayoutOrigin ||
        k == kMetaAliasOf || k.rfind(kMetaCompiledPrefix, 0) == 0)
      continue;
    std::visit([&other, &key = k](const auto& x) { other[key] = x; }, v);
  }
  if (!other.empty()) j["metadata"] = other;
  return j;
}

Json TensorAttrJson(const Tensor& t) {
  Json j;
  j["dtype"] = DTypeName(t.dtype());
  j["shape"] = t.shape();
  if (t.defined() && t.numel() <= 64 && t.dtype() != DType::kString) {
    Json v = Json::array();
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (IsFloatDType(t.dtype())) v.push_back(FloatJson(t.GetDouble(i)));
      else v.push_back(t.GetInt64(i));
    }
    j["values"] = v;
  }
  return j;
}

Expected<Json> GraphJson(const Graph& g);

Expected<Json> NodeJson(const Node& n) {
  Json j;
  j["name"] = n.name;
  j["op_type"] = n.op_type;
  j["domain"] = n.domain;
  j["opset"] = n.opset;
  j["inputs"] = n.inputs;
  j["outputs"] = n.outputs;
  Json attrs = Json::object(), subgraphs = Json::object();
  using T = Attribute::Type;
  for (const auto& [name, a] : n.attrs) {
    switch (a.type) {
      case T::kFloat: attrs[name] = FloatJson(a.f); break;
      case T::kInt: attrs[name] = a.i; break;
      case T::kString: attrs[name] = a.s; break;
      case T::kInts: attrs[name] = a.ints; break;
      case T::kStrings: attrs[name] = a.strings; break;
      case T::kFloats: {
        Json v = Json::array();
        for (float f : a.floats) v.push_back(FloatJson(f));
        attrs[name] = v;
        break;
      }
      case T::kTensor:
      case T::kSparseTensor: attrs[name] = TensorAttrJson(a.t); break;
      case T::kTensors: {
        Json v = Json::array();
        for (const auto& t : a.tensors) v.push_back(TensorAttrJson(t));
        attrs[name] = v;
        break;
      }
      case T::kGraph: {
        VT_ASSIGN_OR_RETURN(subgraphs[name], GraphJson(*a.g));
        break;
      }
      case T::kGraphs: {
        Json v = Json::array();
        for (const auto& sg : a.graphs) {
          VT_ASSIGN_OR_RETURN(Json gj, GraphJson(*sg));
          v.push_back(std::move(gj));
        }
        subgraphs[name] = v;
        break;
      }
      case T::kTypeProto: attrs[name] = a.tp.ToString(); break;
      default: attrs[name] = nullptr; break;
    }
  }
  j["attributes"] = attrs;
  if (!subgraphs.empty()) j["subgraphs"] = subgraphs;
  return j;
}

Expected<Json> GraphJson(const Graph& g) {
  Json j;
  j["name"] = g.name;
  std::set<std::string> listed;
  Json inputs = Json::array();
  for (const auto& in : g.inputs) {
    if (g.initializers.count(in.name)) continue;
    VT_ASSIGN_OR_RETURN(Json v, ValueJson(in.name, FindSpec(g, in.name)));
    if (!v.contains("dtype") && in.spec.type().kind != TypeInfo::Kind::kUnknown) {
      VT_ASSIGN_OR_RETURN(v, ValueJson(in.name, &in.spec));
    }
    inputs.push_back(std::move(v));
    listed.insert(in.name);
  }
  j["inputs"] = inputs;
  Json outputs = Json::array();
  for (const auto& o : g.outputs) {
    const TensorSpec* s = FindSpec(g, o.name);
    VT_ASSIGN_OR_RETURN(Json v, ValueJson(o.name, s ? s : &o.spec));
    outputs.push_back(std::move(v));
    listed.insert(o.name);
  }
  j["outputs"] = outputs;
  Json inits = Json::array();
  for (const auto& [name, t] : g.initializers) {
    VT_ASSIGN_OR_RETURN(Json v, ValueJson(name, FindSpec(g, name)));
    if (!v.contains("dtype")) {
      v["type"] = "tensor";
      v["dtype"] = DTypeName(t.dtype());
      v["shape"] = t.shape();
    }
    v["bytes"] = t.nbytes();
    inits.push_back(std::move(v));
    listed.insert(name);
  }
  j["initializers"] = inits;
  Json nodes = Json::array();
  auto order = g.TopologicalOrder();
  std::vector<size_t> idx;
  if (order.ok()) {
    idx = *order;
  } else {
    for (size_t i = 0; i < g.nodes.size(); ++i) idx.push_back(i);
  }
  for (size_t i : idx) {
    VT_ASSIGN_OR_RETURN(Json nj, NodeJson(g.nodes[i]));
    nodes.push_back(std::move(nj));
  }
  j["nodes"] = nodes;
  std::map<std::string, const TensorSpec*> rest;
  for (const auto& [name, spec] : g.values)
    if (!listed.count(name) && spec.type().kind != TypeInfo::Kind::kUnknown) rest[name] = &spec;
  Json values = Json::array();
  for (const auto& [name, spec] : rest) {
    VT_ASSIGN_OR_RETURN(Json v, ValueJson(name, spec));
    values.push_back(std::move(v));
  }
  j["values"] = values;
  return j;
}

template <typename T>
Status Field(const Json& j, const char* key, T* out) {
  if (!j.contains(key)) return InvalidArgument(std::string("layout json: missing field '") + key + "'");
  try {
    *out = j.at(key).get<T>();
  } catch (const Json::exception&) {
    return InvalidArgument(std::string("layout json: field '") + key + "' has the wrong type");
  }
  return Status::Ok();
}

}  // namespace

Expected<std::string> ExportJson(const Model& model, const JsonExportOptions& opts) {
  if (!model.graph) return InvalidArgument("model has no graph");
  Json doc;
  doc["schema"] = "vtensor.graph";
  doc["version"] = 1;
  doc["target"] = opts.target.empty() ? Json(nullptr) : Json(opts.target);
  Json m;
  m["ir_version"] = model.ir_version;
  m["producer_name"] = model.producer_name;
  m["producer_version"] = model.producer_version;
  Json opsets = Json::object();
  for (const auto& [d, v] : model.opsets) opsets[d] = v;
  m["opsets"] = opsets;
  doc["model"] = m;
  VT_ASSIGN_OR_RETURN(doc["graph"], GraphJson(*model.graph));
  return doc.dump(opts.indent) + "\n";
}

Expected<LayoutFacts> LayoutFactsFromJson(const std::string& json_object) {
  Json j = Json::parse(json_object, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgument("layout json: not a JSON object");
  LayoutFacts f;
  VT_RETURN_IF_ERROR(Field(j, "version", &f.version));
  VT_RETURN_IF_ERROR(Field(j, "text", &f.text));
  VT_RETURN_IF_ERROR(Field(j, "shape", &f.shape));
  VT_RETURN_IF_ERROR(Field(j, "encoding", &f.encoding));
  VT_RETURN_IF_ERROR(Field(j, "block_elems", &f.block_elems));
  VT_RETURN_IF_ERROR(Field(j, "block_bytes", &f.block_bytes));
  VT_RETURN_IF_ERROR(Field(j, "scale_placement", &f.scale_placement));
  VT_RETURN_IF_ERROR(Field(j, "block_order", &f.block_order));
  VT_RETURN_IF_ERROR(Field(j, "form", &f.form));
  if (f.form == "strided") VT_RETURN_IF_ERROR(Field(j, "strides", &f.strides));
  VT_RETURN_IF_ERROR(Field(j, "padded", &f.padded));
  VT_RETURN_IF_ERROR(Field(j, "offset", &f.offset));
  if (!j.contains("levels") || !j["levels"].is_array())
    return InvalidArgument("layout json: missing field 'levels'");
  for (const auto& lv : j["levels"]) {
    LayoutLevel l;
    if (!lv.is_object()) return InvalidArgument("layout json: a level is not an object");
    VT_RETURN_IF_ERROR(Field(lv, "dim", &l.dim));
    VT_RETURN_IF_ERROR(Field(lv, "tile", &l.tile));
    VT_RETURN_IF_ERROR(Field(lv, "stride", &l.stride));
    f.levels.push_back(l);
  }
  return f;
}

}  // namespace vt
