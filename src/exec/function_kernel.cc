// Expands ops defined by an ONNX function body (OpSchema::GetFunction or a context-dependent
// body built from the actual input types) into a subgraph, cached per input signature.
#include <onnx/onnx_pb.h>

#include <map>
#include <mutex>

#include "exec/graph_runner.h"
#include "format/onnx_defs.h"
#include "vtensor/graph/node_status.h"
#include "vtensor/graph/onnx_import.h"

namespace vt {

namespace {

void AttrToProto(const Attribute& a, onnx::AttributeProto* p) {
  using T = Attribute::Type;
  p->set_name(a.name);
  switch (a.type) {
    case T::kFloat: p->set_type(onnx::AttributeProto::FLOAT); p->set_f(a.f); break;
    case T::kInt: p->set_type(onnx::AttributeProto::INT); p->set_i(a.i); break;
    case T::kString: p->set_type(onnx::AttributeProto::STRING); p->set_s(a.s); break;
    case T::kFloats:
      p->set_type(onnx::AttributeProto::FLOATS);
      for (float f : a.floats) p->add_floats(f);
      break;
    case T::kInts:
      p->set_type(onnx::AttributeProto::INTS);
      for (int64_t i : a.ints) p->add_ints(i);
      break;
    case T::kStrings:
      p->set_type(onnx::AttributeProto::STRINGS);
      for (const auto& s : a.strings) p->add_strings(s);
      break;
    case T::kTensor:
    case T::kSparseTensor:
      p->set_type(onnx::AttributeProto::TENSOR);
      TensorToProto(a.t, a.t.name(), p->mutable_t());
      break;
    default:
      break;
  }
}

onnx::TypeProto TypeOfValue(const Value& v) {
  onnx::TypeProto tp;
  if (v.is_tensor()) {
    auto* tt = tp.mutable_tensor_type();
    tt->set_elem_type(static_cast<int32_t>(v.tensor().dtype()));
    auto* sh = tt->mutable_shape();
    for (int64_t d : v.tensor().shape()) sh->add_dim()->set_dim_value(d);
  } else if (v.is_sequence()) {
    tp.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        static_cast<int32_t>(v.elem_type()));
  }
  return tp;
}

class FunctionKernel : public OpKernel {
 public:
  FunctionKernel(const Node& node, const Model& model, const OnnxDefs& defs, const void* schema)
      : node_(node), model_(model), defs_(defs), schema_(schema) {}

  Status Compute(KernelContext& ctx) const override {
    std::string key;
    std::vector<onnx::TypeProto> types;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input_value(i);
      if (v == nullptr) {
        key += "-;";
        types.emplace_back();
        continue;
      }
      types.push_back(TypeOfValue(*v));
      key += std::to_string(v->is_tensor() ? static_cast<int>(v->tensor().dtype()) : 100 + static_cast<int>(v->elem_type()));
      if (defs_.context_dependent(schema_) && v->is_tensor())
        key += "r" + std::to_string(v->tensor().rank());
      key += ";";
    }
    VT_ASSIGN_OR_RETURN(std::shared_ptr<Graph> body, Body(key, types, ctx));
    std::vector<Value> ins;
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      ins.push_back(ctx.input_value(i) ? *ctx.input_value(i) : Value());
    VT_ASSIGN_OR_RETURN(auto outs, ctx.RunSubgraph(*body, ins));
    for (size_t o = 0; o < outs.size() && o < ctx.num_outputs(); ++o) ctx.SetOutput(o, outs[o]);
    return Status::Ok();
  }

 private:
  // The expanded body for input signature `key`, built on first use. Concurrent runs share
  // the cache; a body, once built, is never modified.
  Expected<std::shared_ptr<Graph>> Body(const std::string& key,
                                        const std::vector<onnx::TypeProto>& types,
                                        KernelContext& ctx) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      VT_ASSIGN_OR_RETURN(auto g, Build(types, ctx));
      it = cache_.emplace(key, std::move(g)).first;
    }
    return it->second;
  }

  Expected<std::shared_ptr<Graph>> Build(const std::vector<onnx::TypeProto>& types,
                                         KernelContext& ctx) const {
    onnx::NodeProto np;
    np.set_op_type(node_.op_type);
    np.set_domain(node_.domain);
    np.set_name(node_.name);
    for (size_t i = 0; i < node_.inputs.size(); ++i)
      np.add_input(ctx.input_value(i) ? "__vt_in" + std::to_string(i) : "");
    for (size_t i = 0; i < node_.outputs.size(); ++i) np.add_output("__vt_out" + std::to_string(i));
    for (const auto& [n, a] : node_.attrs) AttrToProto(a, np.add_attribute());
    for (onnx::AttributeProto& a : defs_.attribute_defaults(schema_))
      if (!node_.attrs.count(a.name())) *np.add_attribute() = std::move(a);
    onnx::FunctionProto fp;
    std::string error;
    if (!defs_.function_body(schema_, np, types, &fp, &error)) return ctx.Error(error);
    const onnx::FunctionProto* body = &fp;
    onnx::GraphProto gp;
    gp.set_name(node_.name + "/function");
    if (!defs_.expand_function(schema_, np, *body, node_.name + "/", &gp, &error))
      return ctx.Error(error);
    // Attributes that referenced an optional parent attribute the node does not set.
    for (auto& n : *gp.mutable_node()) {
      google::protobuf::RepeatedPtrField<onnx::AttributeProto> kept;
      for (auto& a : n.attribute())
        if (a.ref_attr_name().empty() && a.type() != onnx::AttributeProto::UNDEFINED) *kept.Add() = a;
      n.mutable_attribute()->Swap(&kept);
    }
    for (size_t i = 0; i < node_.inputs.size(); ++i) {
      if (!ctx.input_value(i)) continue;
      auto* vi = gp.add_input();
      vi->set_name("__vt_in" + std::to_string(i));
      *vi->mutable_type() = types[i];
    }
    for (size_t i = 0; i < node_.outputs.size(); ++i) gp.add_output()->set_name("__vt_out" + std::to_string(i));
    Model fm;
    fm.path = model_.path;
    fm.opsets = model_.opsets;
    for (const auto& os : body->opset_import()) fm.opsets[os.domain() == "ai.onnx" ? "" : os.domain()] = os.version();
    if (body->opset_import_size() == 0) fm.opsets[node_.domain] = node_.opset;
    TensorContext tctx;
    tctx.file = model_.path;
    VT_ASSIGN_OR_RETURN(auto g, ImportGraph(gp, fm, nullptr, tctx));
    // Inputs the body never reads still occupy positions; keep positional mapping.
    std::vector<GraphIO> all_inputs;
    for (size_t i = 0; i < node_.inputs.size(); ++i) {
      GraphIO io;
      io.name = ctx.input_value(i) ? "__vt_in" + std::to_string(i) : "__vt_absent" + std::to_string(i);
      all_inputs.push_back(io);
    }
    g->inputs = all_inputs;
    return g;
  }

  Node node_;
  const Model& model_;
  const OnnxDefs& defs_;
  const void* schema_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::shared_ptr<Graph>> cache_;
};

}  // namespace

Expected<std::unique_ptr<OpKernel>> CreateFunctionKernel(const Node& node, const Model& model) {
  const std::string op = (node.domain.empty() ? "" : node.domain + ".") + node.op_type;
  if (!node.domain.empty() && node.domain != "ai.onnx.ml" && node.domain != "ai.onnx.preview.training" &&
      node.domain != "com.microsoft")
    return AnnotateNode(Unimplemented("unknown domain '" + node.domain + "'"), node);
  const std::string no_kernel = "no kernel for op '" + op + "' at opset " + std::to_string(node.opset);
  // The plugin is loaded only here, for an operator of an ONNX domain no kernel implements;
  // without it the op stays unimplemented, and the message says why no body was looked for.
  Expected<const OnnxDefs*> defs = LoadOnnxDefs(", and its ONNX function body, if any,");
  if (!defs.ok()) return AnnotateNode(Unimplemented(no_kernel + defs.status().message()), node);
  const void* schema =
      (*defs)->find_function_schema(node.op_type, static_cast<int>(node.opset), node.domain);
  if (schema == nullptr) return AnnotateNode(Unimplemented(no_kernel), node);
  return std::unique_ptr<OpKernel>(new FunctionKernel(node, model, **defs, schema));
}

}  // namespace vt
