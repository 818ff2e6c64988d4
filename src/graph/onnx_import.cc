#include "vtensor/graph/onnx_import.h"

#include "vtensor/format/model_skeleton.h"
#include "vtensor/format/tensor_proto.h"
#include "vtensor/tensor/natural_alignment.h"
#include "format/onnx_defs.h"

#include <onnx/onnx_pb.h>
#include <onnx/onnx-data.pb.h>

#include <cstring>
#include <limits>
#include <set>
#include <unordered_map>

namespace vt {


TypeInfo TypeFromProto(const onnx::TypeProto& tp) {
  TypeInfo ti;
  if (tp.has_tensor_type()) {
    ti.kind = TypeInfo::Kind::kTensor;
    ti.elem = IsKnownDType(tp.tensor_type().elem_type())
                  ? static_cast<DType>(tp.tensor_type().elem_type())
                  : DType::kUndefined;
    if (tp.tensor_type().has_shape()) {
      SymShape s;
      for (const auto& d : tp.tensor_type().shape().dim()) {
        Dim dim;
        if (d.has_dim_value()) dim.value = d.dim_value();
        else if (d.has_dim_param()) dim.param = d.dim_param();
        s.push_back(dim);
      }
      ti.shape = std::move(s);
    }
  } else if (tp.has_sequence_type()) {
    ti.kind = TypeInfo::Kind::kSequence;
    ti.inner = std::make_shared<TypeInfo>(TypeFromProto(tp.sequence_type().elem_type()));
    ti.elem = ti.inner->elem;
  } else if (tp.has_optional_type()) {
    ti.kind = TypeInfo::Kind::kOptional;
    ti.inner = std::make_shared<TypeInfo>(TypeFromProto(tp.optional_type().elem_type()));
    ti.elem = ti.inner->elem;
  } else if (tp.has_map_type()) {
    ti.kind = TypeInfo::Kind::kMap;
  }
  return ti;
}

namespace {

std::string NormDomain(const std::string& d) { return d == "ai.onnx" ? "" : d; }

int64_t OpsetFor(const Model& m, const std::string& domain) {
  auto it = m.opsets.find(domain);
  if (it != m.opsets.end()) return it->second;
  return 0;
}

Status ImportAttribute(const onnx::AttributeProto& ap, const Model& model, const Graph* owner,
                       TensorContext& ctx, Attribute* a);

Status ImportNode(const onnx::NodeProto& np, const Model& model, const Graph* owner,
                  TensorContext& ctx, size_t index, Node* node) {
  node->op_type = np.op_type();
  node->domain = NormDomain(np.domain());
  node->name = np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name();
  if (node->op_type.empty())
    return InvalidArgument(ctx.file + ": node #" + std::to_string(index) + " ('" + np.name() +
                           "'): field op_type: empty");
  node->opset = OpsetFor(model, node->domain);
  node->inputs.assign(np.input().begin(), np.input().end());
  node->outputs.assign(np.output().begin(), np.output().end());
  for (const auto& ap : np.attribute()) {
    Attribute a;
    VT_RETURN_IF_ERROR_CTX(ImportAttribute(ap, model, owner, ctx, &a),
                           ctx.file + ": " + node->Describe() + ": attribute '" + ap.name() + "'");
    node->attrs[ap.name()] = std::move(a);
  }
  return Status::Ok();
}

Status ImportAttribute(const onnx::AttributeProto& ap, const Model& model, const Graph* owner,
                       TensorContext& ctx, Attribute* a) {
  using T = Attribute::Type;
  a->name = ap.name();
  switch (ap.type()) {
    case onnx::AttributeProto::FLOAT: a->type = T::kFloat; a->f = ap.f(); break;
    case onnx::AttributeProto::INT: a->type = T::kInt; a->i = ap.i(); break;
    case onnx::AttributeProto::STRING: a->type = T::kString; a->s = ap.s(); break;
    case onnx::AttributeProto::FLOATS:
      a->type = T::kFloats;
      a->floats.assign(ap.floats().begin(), ap.floats().end());
      break;
    case onnx::AttributeProto::INTS:
      a->type = T::kInts;
      a->ints.assign(ap.ints().begin(), ap.ints().end());
      break;
    case onnx::AttributeProto::STRINGS:
      a->type = T::kStrings;
      a->strings.assign(ap.strings().begin(), ap.strings().end());
      break;
    case onnx::AttributeProto::TENSOR: {
      a->type = T::kTensor;
      VT_ASSIGN_OR_RETURN(a->t, TensorFromProto(ap.t(), ctx));
      break;
    }
    case onnx::AttributeProto::TENSORS:
      a->type = T::kTensors;
      for (const auto& t : ap.tensors()) {
        VT_ASSIGN_OR_RETURN(Tensor x, TensorFromProto(t, ctx));
        a->tensors.push_back(std::move(x));
      }
      break;
    case onnx::AttributeProto::SPARSE_TENSOR: {
      a->type = T::kSparseTensor;
      const auto& sp = ap.sparse_tensor();
      VT_ASSIGN_OR_RETURN(Tensor values, TensorFromProto(sp.values(), ctx));
      VT_ASSIGN_OR_RETURN(Tensor indices_in, TensorFromProto(sp.indices(), ctx));
      const Tensor indices = NaturallyAligned(indices_in);  // read as int64 below
      Shape shape(sp.dims().begin(), sp.dims().end());
      for (int64_t d : shape)
        if (d < 0 || d > kMaxTensorElements) return InvalidArgument("sparse_tensor: bad dims");
      Tensor dense = Tensor::Zeros(values.dtype(), shape);
      const int64_t nnz = values.numel();
      const size_t es = DTypeSize(values.dtype());
      const int64_t total = dense.numel();
      auto strides = RowMajorStrides(shape);
      for (int64_t k = 0; k < nnz; ++k) {
        int64_t flat = 0;
        if (indices.rank() == 1) {
          flat = indices.GetInt64(k);
        } else if (indices.rank() == 2) {
          for (size_t d = 0; d < shape.size(); ++d)
            flat += indices.GetInt64(k * static_cast<int64_t>(shape.size()) + static_cast<int64_t>(d)) * strides[d];
        } else {
          return InvalidArgument("sparse_tensor: indices must be rank 1 or 2");
        }
        if (flat < 0 || flat >= total) return OutOfRange("sparse_tensor: index out of range");
        std::memcpy(static_cast<uint8_t*>(dense.raw_mutable_data()) + flat * static_cast<int64_t>(es),
                    static_cast<const uint8_t*>(values.raw_data()) + k * static_cast<int64_t>(es), es);
      }
      a->t = dense;
      break;
    }
    case onnx::AttributeProto::GRAPH: {
      a->type = T::kGraph;
      VT_ASSIGN_OR_RETURN(a->g, ImportGraph(ap.g(), model, owner, ctx));
      break;
    }
    case onnx::AttributeProto::GRAPHS:
      a->type = T::kGraphs;
      for (const auto& g : ap.graphs()) {
        VT_ASSIGN_OR_RETURN(auto sg, ImportGraph(g, model, owner, ctx));
        a->graphs.push_back(sg);
      }
      break;
    case onnx::AttributeProto::TYPE_PROTO:
      a->type = T::kTypeProto;
      a->tp = TypeFromProto(ap.tp());
      break;
    case onnx::AttributeProto::TYPE_PROTOS:
      a->type = T::kTypeProtos;
      for (const auto& t : ap.type_protos()) a->tps.push_back(TypeFromProto(t));
      break;
    default:
      // Attributes with no type set: infer from populated field (old exporters).
      if (ap.has_f()) { a->type = T::kFloat; a->f = ap.f(); }
      else if (ap.has_i()) { a->type = T::kInt; a->i = ap.i(); }
      else if (ap.has_s()) { a->type = T::kString; a->s = ap.s(); }
      else if (ap.ints_size()) { a->type = T::kInts; a->ints.assign(ap.ints().begin(), ap.ints().end()); }
      else if (ap.floats_size()) { a->type = T::kFloats; a->floats.assign(ap.floats().begin(), ap.floats().end()); }
      else return InvalidArgument("field type: undefined attribute type");
  }
  return Status::Ok();
}

// The initializers and sparse initializers of `gp` into `g`.
Status ImportInitializers(const onnx::GraphProto& gp, const Model& model, Graph* g,
                          TensorContext& ctx) {
  for (const auto& init : gp.initializer()) {
    if (init.name().empty())
      return InvalidArgument(ctx.file + ": graph '" + gp.name() + "': initializer with empty name");
    VT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(init, ctx));
    if (g->initializers.count(init.name()))
      return InvalidArgument(ctx.file + ": " + TensorLabel(init) + ": duplicate initializer name");
    TensorSpec spec(TypeInfo::Tensor(t.dtype(), std::nullopt));
    SymShape s;
    for (int64_t d : t.shape()) s.push_back(Dim{d, ""});
    spec.mutable_type().shape = s;
    spec.set_identity(init.name());
    g->values[init.name()] = spec;
    g->initializers[init.name()] = std::move(t);
  }
  for (const auto& sp : gp.sparse_initializer()) {
    onnx::AttributeProto ap;
    ap.set_name(sp.values().name());
    ap.set_type(onnx::AttributeProto::SPARSE_TENSOR);
    *ap.mutable_sparse_tensor() = sp;
    Attribute a;
    VT_RETURN_IF_ERROR(ImportAttribute(ap, model, g, ctx, &a));
    a.t.set_name(sp.values().name());
    g->initializers[sp.values().name()] = a.t;
  }
  return Status::Ok();
}

// ImportOptions::sources_only: the initializers and the Constant nodes of the main graph.
Expected<std::shared_ptr<Graph>> ImportSources(const onnx::GraphProto& gp, const Model& model,
                                               TensorContext& ctx) {
  auto g = std::make_shared<Graph>();
  g->name = gp.name();
  VT_RETURN_IF_ERROR(ImportInitializers(gp, model, g.get(), ctx));
  for (int i = 0; i < gp.node_size(); ++i) {
    const onnx::NodeProto& np = gp.node(i);
    if (np.op_type() != "Constant" || !NormDomain(np.domain()).empty()) continue;
    Node n;
    VT_RETURN_IF_ERROR(ImportNode(np, model, g.get(), ctx, static_cast<size_t>(i), &n));
    g->nodes.push_back(std::move(n));
  }
  return g;
}

}  // namespace

Expected<std::shared_ptr<Graph>> ImportGraph(const onnx::GraphProto& gp, const Model& model,
                                             const Graph* parent, TensorContext& ctx) {
  auto g = std::make_shared<Graph>();
  g->name = gp.name();
  g->parent = parent;
  VT_RETURN_IF_ERROR(ImportInitializers(gp, model, g.get(), ctx));
  for (const auto& vi : gp.input()) {
    GraphIO io{vi.name(), TensorSpec(TypeFromProto(vi.type()))};
    g->values[vi.name()] = io.spec;
    g->inputs.push_back(std::move(io));
  }
  for (const auto& vi : gp.output()) {
    GraphIO io{vi.name(), TensorSpec(TypeFromProto(vi.type()))};
    g->outputs.push_back(io);
    if (!g->values.count(vi.name())) g->values[vi.name()] = io.spec;
  }
  for (const auto& vi : gp.value_info())
    if (!g->values.count(vi.name())) g->values[vi.name()] = TensorSpec(TypeFromProto(vi.type()));
  g->nodes.resize(static_cast<size_t>(gp.node_size()));
  for (int i = 0; i < gp.node_size(); ++i)
    VT_RETURN_IF_ERROR(ImportNode(gp.node(i), model, g.get(), ctx, static_cast<size_t>(i),
                                  &g->nodes[static_cast<size_t>(i)]));
  return g;
}

namespace {

// Inlines calls to model-local functions (ModelProto.functions) into `gp`, recursively.
Status InlineLocalFunctions(onnx::GraphProto* gp, const onnx::ModelProto& mp, int depth,
                            int* counter) {
  if (depth > 32) return InvalidArgument("model-local functions nest deeper than 32 levels");
  std::map<std::pair<std::string, std::string>, const onnx::FunctionProto*> funcs;
  for (const auto& f : mp.functions()) funcs[{NormDomain(f.domain()), f.name()}] = &f;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> out;
  for (auto& node : *gp->mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) VT_RETURN_IF_ERROR(InlineLocalFunctions(attr.mutable_g(), mp, depth + 1, counter));
      for (auto& g : *attr.mutable_graphs()) VT_RETURN_IF_ERROR(InlineLocalFunctions(&g, mp, depth + 1, counter));
    }
    auto it = funcs.find({NormDomain(node.domain()), node.op_type()});
    if (it == funcs.end()) {
      *out.Add() = node;
      continue;
    }
    const onnx::FunctionProto& f = *it->second;
    const std::string prefix = "__fn" + std::to_string((*counter)++) + "_" + f.name() + "/";
    std::unordered_map<std::string, std::string> rename;
    for (int i = 0; i < f.input_size(); ++i)
      rename[f.input(i)] = i < node.input_size() ? node.input(i) : "";
    for (int i = 0; i < f.output_size(); ++i)
      rename[f.output(i)] = i < node.output_size() ? node.output(i) : prefix + f.output(i);
    std::map<std::string, const onnx::AttributeProto*> call_attrs;
    for (const auto& a : node.attribute()) call_attrs[a.name()] = &a;
    std::map<std::string, const onnx::AttributeProto*> defaults;  // ONNX >= 1.13 attribute_proto
    onnx::GraphProto body;
    for (const auto& fn : f.node()) {
      onnx::NodeProto n = fn;
      n.clear_attribute();
      for (const auto& a : fn.attribute()) {
        if (!a.ref_attr_name().empty()) {
          const onnx::AttributeProto* src = nullptr;
          auto c = call_attrs.find(a.ref_attr_name());
          if (c != call_attrs.end()) src = c->second;
          else if (auto d = defaults.find(a.ref_attr_name()); d != defaults.end()) src = d->second;
          if (src == nullptr) continue;  // optional attribute not given
          onnx::AttributeProto na = *src;
          na.set_name(a.name());
          *n.add_attribute() = na;
        } else {
          *n.add_attribute() = a;
        }
      }
      for (auto& in : *n.mutable_input()) {
        if (in.empty()) continue;
        if (auto r = rename.find(in); r != rename.end()) in = r->second;
        else in.insert(0, prefix);
      }
      for (auto& o : *n.mutable_output()) {
        if (o.empty()) continue;
        if (auto r = rename.find(o); r != rename.end()) o = r->second;
        else o.insert(0, prefix);
      }
      if (!n.name().empty()) n.set_name(prefix + n.name());
      *body.add_node() = n;
    }
    VT_RETURN_IF_ERROR(InlineLocalFunctions(&body, mp, depth + 1, counter));
    for (auto& n : *body.mutable_node()) *out.Add() = std::move(n);
  }
  gp->mutable_node()->Swap(&out);
  return Status::Ok();
}

}  // namespace


namespace {
Expected<Model> ImportModelImpl(const onnx::ModelProto& mp_in, const std::string& path,
                                const ImportOptions& opts, std::shared_ptr<const void> owner) {
  Model m;
  m.path = path;
  m.ir_version = mp_in.ir_version();
  if (!mp_in.has_graph())
    return InvalidArgument(path + ": field graph: model has no graph (not an ONNX model?)");
  if (m.ir_version < 3 || m.ir_version > 10)
    return InvalidArgument(path + ": field ir_version: " + std::to_string(m.ir_version) +
                           " outside supported range 3..10");
  for (const auto& os : mp_in.opset_import()) {
    if (os.version() <= 0)
      return InvalidArgument(path + ": field opset_import: domain '" + os.domain() +
                             "' has version " + std::to_string(os.version()));
    m.opsets[NormDomain(os.domain())] = os.version();
  }
  if (!m.opsets.count("")) m.opsets[""] = 1;
  m.producer_name = mp_in.producer_name();
  m.producer_version = mp_in.producer_version();
  m.domain = mp_in.domain();
  m.model_version = mp_in.model_version();
  m.doc_string = mp_in.doc_string();
  m.graph_doc_string = mp_in.graph().doc_string();
  for (const auto& kv : mp_in.metadata_props()) m.metadata_props[kv.key()] = kv.value();

  const onnx::ModelProto* mp = &mp_in;
  onnx::ModelProto inlined;
  if (mp_in.functions_size() > 0) {
    inlined = mp_in;
    int counter = 0;
    VT_RETURN_IF_ERROR_CTX(InlineLocalFunctions(inlined.mutable_graph(), inlined, 0, &counter), path);
    mp = &inlined;
  }

  ExternalDataResolver resolver(ExternalDataDir(path));
  TensorContext ctx{path, &resolver, mp == &mp_in ? std::move(owner) : nullptr, opts.elided,
                    opts.keep_misaligned};
  if (opts.sources_only) {
    VT_ASSIGN_OR_RETURN(m.graph, ImportSources(mp->graph(), m, ctx));
    return m;
  }
  VT_ASSIGN_OR_RETURN(m.graph, ImportGraph(mp->graph(), m, nullptr, ctx));

  if (opts.infer_shapes) {
    // Best effort: ONNX shape inference (format/onnx_defs.h) fills value types; failures,
    // and a plugin that cannot be loaded, never reject a model.
    Expected<const OnnxDefs*> defs = LoadOnnxDefs("shape inference");
    if (defs.ok()) {
      onnx::ModelProto copy;
      copy.CopyFrom(*mp);
      for (auto& init : *copy.mutable_graph()->mutable_initializer()) {
        if (init.data_location() == onnx::TensorProto::EXTERNAL) init.clear_external_data();
      }
      std::string error;
      if ((*defs)->infer_shapes(&copy, &error))
        for (const auto& vi : copy.graph().value_info())
          if (!m.graph->values.count(vi.name()))
            m.graph->values[vi.name()] = TensorSpec(TypeFromProto(vi.type()));
    }
  }
  return m;
}

}  // namespace

Expected<Model> ImportModel(const onnx::ModelProto& mp, const std::string& path,
                            const ImportOptions& opts) {
  return ImportModelImpl(mp, path, opts, nullptr);
}

Expected<Model> ImportModel(std::shared_ptr<const onnx::ModelProto> mp, const std::string& path,
                            const ImportOptions& opts) {
  const onnx::ModelProto& ref = *mp;
  return ImportModelImpl(ref, path, opts, std::move(mp));
}

Expected<Model> LoadModel(const std::string& path, const ImportOptions& opts) {
  VT_ASSIGN_OR_RETURN(auto file, MappedFile::Open(path));
  if (file->size() == 0) return InvalidArgument(path + ": empty file, not an ONNX model");
  VT_ASSIGN_OR_RETURN(ModelSkeleton sk, ParseModelSkeleton(std::move(file), path, false));
  ImportOptions io = opts;
  io.elided = sk.elided;
  return ImportModel(*sk.proto, path, io);
}

namespace {
Expected<Value> ValueFromSequenceProto(const onnx::SequenceProto& sp, const TensorContext& ctx);
Expected<Value> ValueFromOptionalProto(const onnx::OptionalProto& op, const TensorContext& ctx) {
  if (op.elem_type() == onnx::OptionalProto::TENSOR && op.has_tensor_value()) {
    VT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(op.tensor_value(), ctx));
    return Value(std::move(t));
  }
  if (op.elem_type() == onnx::OptionalProto::SEQUENCE && op.has_sequence_value())
    return ValueFromSequenceProto(op.sequence_value(), ctx);
  return Value::NoneOf(op.elem_type() == onnx::OptionalProto::SEQUENCE, DType::kUndefined);
}
Expected<Value> ValueFromSequenceProto(const onnx::SequenceProto& sp, const TensorContext& ctx) {
  std::vector<Tensor> items;
  DType elem = DType::kUndefined;
  for (const auto& t : sp.tensor_values()) {
    VT_ASSIGN_OR_RETURN(Tensor x, TensorFromProto(t, ctx));
    elem = x.dtype();
    items.push_back(std::move(x));
  }
  if (sp.elem_type() != onnx::SequenceProto::TENSOR && sp.elem_type() != onnx::SequenceProto::UNDEFINED)
    return Unimplemented(ctx.file + ": sequences of non-tensor elements");
  return Value::Sequence(elem, std::move(items));
}
}  // namespace

Expected<Value> LoadValueFile(const std::string& path, const TypeInfo& expected) {
  VT_ASSIGN_OR_RETURN(std::shared_ptr<MappedFile> file, MappedFile::Open(path));
  if (file->size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return InvalidArgument(path + ": value file larger than 2 GiB (protobuf's limit)");
  const std::string_view bytes(reinterpret_cast<const char*>(file->data()), file->size());
  TensorContext ctx;
  ctx.file = path;
  const TypeInfo* t = &expected;
  bool optional = false;
  if (t->kind == TypeInfo::Kind::kOptional && t->inner) {
    optional = true;
  }
  if (optional) {
    onnx::OptionalProto op;
    if (!op.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      return InvalidArgument(path + ": not a valid OptionalProto");
    return ValueFromOptionalProto(op, ctx);
  }
  if (t->kind == TypeInfo::Kind::kSequence) {
    onnx::SequenceProto sp;
    if (!sp.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      return InvalidArgument(path + ": not a valid SequenceProto");
    VT_ASSIGN_OR_RETURN(Value v, ValueFromSequenceProto(sp, ctx));
    if (v.elem_type() == DType::kUndefined) v = Value::Sequence(t->elem, {});
    return v;
  }
  // A tensor file is parsed in place and its payload copied once: the value owns its bytes
  // (a view of the mapping would fault if the file were truncated while the value lives).
  VT_ASSIGN_OR_RETURN(TensorSkeleton sk, ParseTensorSkeleton(std::move(file), path));
  ctx.elided = sk.elided;
  VT_ASSIGN_OR_RETURN(Tensor x, TensorFromProto(*sk.proto, ctx));
  if (x.storage() != nullptr && x.storage()->mapped_file() != nullptr) x = x.Clone();
  // Older ONNX test data stores bfloat16 tensors with data_type UINT16 (same bits).
  if (t->kind == TypeInfo::Kind::kTensor && t->elem == DType::kBFloat16 && x.dtype() == DType::kUInt16)
    x = Tensor(DType::kBFloat16, x.layout(), x.storage());
  return Value(std::move(x));
}

}  // namespace vt
