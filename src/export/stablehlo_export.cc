#include "vtensor/export/stablehlo_export.h"

#include <fmt/core.h>

#include <set>

#include "export/dynamic_dims.h"
#include "export/mlir_text.h"
#include "export/stablehlo_emitter.h"
#include "vtensor/export/layout_attr.h"
#include "vtensor/graph/tensor_meta.h"
#include "vtensor/layout/layout_pack.h"
#include "vtensor/layout/nibble_pack.h"
#include "vtensor/layout/layout_text.h"
#include "vtensor/passes/static_shapes.h"

namespace vt {

namespace {

using hlo::Emitter;
using hlo::NodeContext;
using hlo::Val;

// The initializer `name` visible from `g` and the spec that describes it (in its owner graph).
struct ConstRef {
  const Tensor* tensor = nullptr;
  const TensorSpec* spec = nullptr;
};

ConstRef FindConst(const Graph& g, const std::string& name) {
  for (const Graph* s = &g; s != nullptr; s = s->parent) {
    auto it = s->initializers.find(name);
    if (it != s->initializers.end()) {
      auto vs = s->values.find(name);
      return {&it->second, vs == s->values.end() ? nullptr : &vs->second};
    }
    for (const auto& in : s->inputs)
      if (in.name == name) return {};
    for (const auto& n : s->nodes)
      for (const auto& o : n.outputs)
        if (o == name) return {};
  }
  return {};
}

class Exporter {
 public:
  Exporter(const StableHloOptions& o, hlo::DynamicDims dyn) : opts_(o), e_(4) {
    e_.SetDynamicDims(std::move(dyn.names), std::move(dyn.run_time_values));
  }

  Expected<StableHloModule> Run(const Model& model) {
    const Graph& g = *model.graph;
    scopes_.push_back({&g, {}});
    std::string sig;
    int argn = 0;
    for (const GraphIO* in : g.RealInputs()) {
      const TensorSpec& spec = in->spec;
      const Shape shape = hlo::CodedShape(spec);
      if (mlir::ElementType(spec.dtype()).empty())
        return Unimplemented("input '" + in->name + "': dtype " + DTypeName(spec.dtype()) +
                             " has no MLIR element type");
      Val v{"%arg" + std::to_string(argn++), spec.dtype(), shape, mlir::TensorType(spec.dtype(), shape)};
      scopes_.back().vals[in->name] = v;
      e_.NoteDims(v);
      sig += (sig.empty() ? "" : ", ") + v.ref + ": " + v.type + " {vt.name = " + mlir::Quote(in->name) + "}";
    }
    VT_RETURN_IF_ERROR(ConvertGraph(g));
    std::string results, refs, types;
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      VT_ASSIGN_OR_RETURN(Val v, Lookup(g.outputs[i].name));
      results += (i ? ", " : "") + v.type + " {vt.name = " + mlir::Quote(g.outputs[i].name) + "}";
      refs += (i ? ", " : "") + v.ref;
      types += (i ? ", " : "") + v.type;
    }
    e_.Line("\"func.return\"(" + refs + ") : (" + types + ") -> ()");

    std::string attrs;
    if (!opts_.target.empty()) attrs += "vt.target = " + mlir::Quote(opts_.target);
    if (!layouts_.empty()) {
      std::string d;
      for (const auto& [name, l] : layouts_)
        d += std::string(d.empty() ? "" : ",\n    ") + mlir::Quote(name) + " = " +
             LayoutFactsToMlir(DescribeLayout(l));
      attrs += std::string(attrs.empty() ? "" : ",\n  ") + "vt.tensor_layouts = {\n    " + d + "}";
    }
    StableHloModule out;
    out.mlir = attrs.empty() ? "module {\n" : "module attributes {" + attrs + "} {\n";
    for (const auto& decl : global_decls_) out.mlir += "  " + decl + "\n";
    out.mlir += "  func.func @main(" + sig + ") -> (" + results + ") {\n";
    out.mlir += e_.TakeText();
    out.mlir += "  }\n}\n";
    out.params = std::move(params_);
    return out;
  }

 private:
  struct Scope {
    const Graph* graph;
    std::map<std::string, Val> vals;
  };

  Expected<Val> Lookup(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto v = it->vals.find(name);
      if (v != it->vals.end()) return v->second;
    }
    ConstRef c = FindConst(*scopes_.back().graph, name);
    if (c.tensor == nullptr) return InvalidArgument("value '" + name + "' is used before it is defined");
    if (e_.IsRunTimeValue(name))
      return Unimplemented("value '" + name + "' is computed from dynamic dims (a shape), which "
                           "this export has no run-time form of; bind the dims with --input-shape");
    VT_ASSIGN_OR_RETURN(Val v, Materialize(name, *c.tensor, c.spec));
    scopes_.back().vals[name] = v;
    return v;
  }

  Expected<Val> Materialize(const std::string& name, const Tensor& t, const TensorSpec* spec) {
    std::optional<Layout> layout;
    if (spec != nullptr) {
      auto l = TensorLayout(*spec);
      if (!l.ok()) return l.take_status().WithContext("value '" + name + "'");
      layout = *l;
    }
    if (layout) layouts_[name] = *layout;
    if (mlir::ElementType(t.dtype()).empty())
      return Unimplemented("value '" + name + "': dtype " + DTypeName(t.dtype()) + " has no MLIR element type");
    const bool external = opts_.externalize && static_cast<int64_t>(t.nbytes()) > opts_.externalize_above &&
                          t.dtype() != DType::kBool;
    if (!external) {
      auto v = e_.ConstantTensor(t);
      if (!v.ok()) return v.take_status().WithContext("value '" + name + "'");
      return *v;
    }
    auto g = globals_.find(name);
    if (g == globals_.end()) {
      std::string key = name;
      for (int k = 1; keys_.count(key); ++k) key = name + "#" + std::to_string(k);
      keys_.insert(key);
      ExternalParam p;
      p.key = key;
      const Tensor dense = t.Contiguous();
      if (layout && !(layout->is_strided() && layout->is_contiguous() && layout->offset() == 0)) {
        if (t.dtype() != DType::kFloat32)
          return Unimplemented("value '" + name + "': packing a " + std::string(DTypeName(t.dtype())) +
                               " weight into its layout");
        Layout enc = *layout;
        if (enc.encoding() == Encoding::kUnspecified) {
          VT_ASSIGN_OR_RETURN(enc, Layout::Strided(enc.shape(), enc.strides(), enc.offset(), Encoding::kF32));
        }
        auto bytes = PackFloats(dense.data<float>(), enc);
        if (!bytes.ok()) return bytes.take_status().WithContext("value '" + name + "'");
        p.bytes = std::move(*bytes);
        p.layout_text = LayoutToText(*layout);
      } else if (IsSubByteDType(t.dtype())) {
        // Parameter files hold i4 / ui4 packed two per byte, as ONNX does (docs/dtypes.md).
        p.bytes.resize(DTypeFileBytes(t.dtype(), dense.numel()));
        PackNibbles(static_cast<const uint8_t*>(dense.raw_data()), dense.numel(), p.bytes.data());
        if (layout) p.layout_text = LayoutToText(*layout);
      } else {
        const auto* b = static_cast<const uint8_t*>(dense.raw_data());
        p.bytes.assign(b, b + dense.nbytes());
        if (layout) p.layout_text = LayoutToText(*layout);
      }
      std::string encoding;
      if (opts_.per_type_layouts && layout) encoding = "#vt.layout<" + LayoutFactsToMlir(DescribeLayout(*layout)) + ">";
      const std::string type = mlir::TensorType(t.dtype(), t.shape(), encoding);
      global_decls_.push_back("\"util.global\"() {sym_name = " + mlir::Quote(key) +
                              ", sym_visibility = \"private\", type = " + type +
                              ", initial_value = #flow.parameter.named<" + mlir::Quote(opts_.param_scope) +
                              "::" + mlir::Quote(key) + "> : " + type + "} : () -> ()");
      params_.push_back(std::move(p));
      g = globals_.emplace(name, Global{key, type}).first;
    }
    Val v{e_.Fresh(), t.dtype(), t.shape(), g->second.type};
    e_.Line(v.ref + " = \"util.global.load\"() {global = @" + mlir::Quote(g->second.key) + "} : () -> " + v.type);
    return v;
  }

  Status ConvertGraph(const Graph& g) {
    VT_ASSIGN_OR_RETURN(std::vector<size_t> order, g.TopologicalOrder());
    for (size_t idx : order) {
      const Node& node = g.nodes[idx];
      hlo::Converter conv = node.domain.empty() ? hlo::FindConverter(node.op_type) : nullptr;
      if (conv == nullptr)
        return AnnotateNode(Unimplemented("op '" + (node.domain.empty() ? "" : node.domain + ".") +
                                          node.op_type + "' has no StableHLO conversion"),
                            node);
      if (e_.dynamic() && !hlo::AcceptsDynamicDims(node.op_type))
        VT_RETURN_IF_ERROR(RefuseDynamicDims(node, g));
      NodeContext cx(
          node, g, e_, [this](const std::string& n) { return Lookup(n); },
          [this](const Graph& sg, const std::vector<Val>& args, std::vector<Val>* outs) {
            return ConvertSubgraph(sg, args, outs);
          });
      Status st = conv(cx);
      // The converter's own error wins; the emitter's pending one is cleared either way.
      if (Status pending = e_.TakeStatus(); st.ok()) st = std::move(pending);
      if (!st.ok()) return AnnotateNode(std::move(st), node);
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        if (node.outputs[o].empty()) continue;
        auto it = cx.outputs().find(o);
        if (it == cx.outputs().end())
          return AnnotateNode(Unimplemented("output " + std::to_string(o) + " is not converted"),
                              node);
        if (it->second.shape != cx.OutShape(o) || it->second.dtype != cx.OutDType(o))
          return AnnotateNode(Internal("converted output " + std::to_string(o) + " is " +
                                       std::string(DTypeName(it->second.dtype)) +
                                       ShapeToString(it->second.shape) + ", the graph says " +
                                       DTypeName(cx.OutDType(o)) + ShapeToString(cx.OutShape(o))),
                              node);
        scopes_.back().vals[node.outputs[o]] = it->second;
      }
    }
    return Status::Ok();
  }

  // A node of an op without a dynamic-shape conversion fails on its first dynamic dim.
  Status RefuseDynamicDims(const Node& node, const Graph& g) {
    auto check = [&](const std::string& what, const std::string& name) -> Status {
      if (name.empty()) return Status::Ok();
      for (const Graph* s = &g; s != nullptr; s = s->parent) {
        auto it = s->values.find(name);
        if (it == s->values.end()) continue;
        const Shape shape = hlo::CodedShape(it->second);
        for (size_t d = 0; d < shape.size(); ++d)
          if (hlo::IsDynamicDim(shape[d]))
            return AnnotateNode(
                Unimplemented(fmt::format("{} ('{}') dim {} is the dynamic dim {}, and {} has no "
                                          "conversion with dynamic dims; bind the dim with "
                                          "--input-shape",
                                          what, name, d, e_.DimName(shape[d]), node.op_type)),
                node);
        return Status::Ok();
      }
      return Status::Ok();
    };
    for (size_t i = 0; i < node.inputs.size(); ++i)
      VT_RETURN_IF_ERROR(check("input " + std::to_string(i), node.inputs[i]));
    for (size_t o = 0; o < node.outputs.size(); ++o)
      VT_RETURN_IF_ERROR(check("output " + std::to_string(o), node.outputs[o]));
    return Status::Ok();
  }

  Status ConvertSubgraph(const Graph& g, const std::vector<Val>& args, std::vector<Val>* outs) {
    scopes_.push_back({&g, {}});
    size_t k = 0;
    for (const GraphIO* in : g.RealInputs()) {
      if (k >= args.size()) {
        scopes_.pop_back();
        return InvalidArgument("subgraph '" + g.name + "' expects more arguments");
      }
      scopes_.back().vals[in->name] = args[k++];
    }
    Status st = ConvertGraph(g);
    for (size_t i = 0; st.ok() && i < g.outputs.size(); ++i) {
      auto v = Lookup(g.outputs[i].name);
      if (!v.ok()) st = v.take_status();
      else outs->push_back(*v);
    }
    scopes_.pop_back();
    return st;
  }

  struct Global {
    std::string key;
    std::string type;
  };

  const StableHloOptions& opts_;
  Emitter e_;
  std::vector<Scope> scopes_;
  std::map<std::string, Layout> layouts_;
  std::map<std::string, Global> globals_;
  std::vector<std::string> global_decls_;
  std::vector<ExternalParam> params_;
  std::set<std::string> keys_;
};

bool HasNegativeDim(const Shape& s) {
  for (int64_t d : s)
    if (d < 0) return true;
  return false;
}

// Writes the non-negative dims of `shape` into input `name`'s type; its -1 dims become (or stay)
// unknown, so the dynamic specialization keeps them.
Status BindKnownDims(Graph& g, const std::string& name, const Shape& shape) {
  for (GraphIO& in : g.inputs) {
    if (in.name != name) continue;
    const auto& old = in.spec.shape();
    if (old && old->size() != shape.size())
      return InvalidArgument("input '" + name + "': the shape given has rank " + std::to_string(shape.size()) +
                             ", the model's " + std::to_string(old->size()));
    SymShape dims;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] >= 0) dims.push_back(Dim{shape[d], ""});
      else if (old && !(*old)[d].known()) dims.push_back((*old)[d]);  // keeps its symbol name
      else dims.push_back(Dim{-1, ""});
    }
    in.spec.mutable_type().shape = std::move(dims);
    return Status::Ok();
  }
  return InvalidArgument("input '" + name + "' is not an input of the model");
}

}  // namespace

Expected<StableHloModule> ExportStableHlo(Model& model, const StableHloOptions& opts) {
  if (!model.graph) return InvalidArgument("model has no graph");
  StaticShapeOptions so;
  so.input_values = opts.input_values;
  for (const auto& [name, shape] : opts.input_shapes) {
    if (!HasNegativeDim(shape)) {
      so.input_shapes[name] = shape;
      continue;
    }
    VT_RETURN_IF_ERROR(BindKnownDims(*model.graph, name, shape));  // -1 dims stay dynamic
  }
  hlo::DynamicDims dyn;
  if (hlo::HasUnboundInputDims(model, so)) {
    VT_ASSIGN_OR_RETURN(dyn, hlo::SpecializeDynamicDims(model, so));
  } else {
    VT_RETURN_IF_ERROR(SpecializeShapes(model, so));
  }
  Exporter ex(opts, std::move(dyn));
  return ex.Run(model);
}

std::vector<std::string> StableHloSupportedOps() { return hlo::SupportedOps(); }

}  // namespace vt
