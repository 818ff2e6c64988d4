#include "vtensor/graph/plan_graph.h"

#include <onnx/onnx_pb.h>
#include <xxhash.h>

#include <cstdio>
#include <cstring>

namespace vt {

namespace {

using PG = vtensor::PlanGraphProto;

// What a plan writer does with main-graph initializers.
struct WriteMode {
  const std::map<std::string, Tensor>* source = nullptr;  // equal ones become references
  bool structure_only = false;                            // every one a reference
  std::string* blobs = nullptr;  // large tensors' bytes appended here (64-aligned)
};

void TypeToPlan(const TypeInfo& t, vtensor::PlanTypeProto* p) {
  p->set_kind(static_cast<int32_t>(t.kind));
  p->set_elem(static_cast<int32_t>(t.elem));
  p->set_has_shape(t.shape.has_value());
  if (t.shape)
    for (const Dim& d : *t.shape) {
      auto* pd = p->add_shape();
      pd->set_value(d.value);
      if (!d.param.empty()) pd->set_param(d.param);
    }
  if (t.inner) TypeToPlan(*t.inner, p->mutable_inner());
}

void ValueToPlan(const std::string& name, const TensorSpec& spec, vtensor::PlanValueProto* p) {
  p->set_name(name);
  TypeToPlan(spec.type(), p->mutable_type());
  for (const auto& [key, v] : spec.metadata()) {
    auto* m = p->add_meta();
    m->set_key(key);
    if (const auto* s = std::get_if<std::string>(&v)) m->set_s(*s);
    else if (const auto* i = std::get_if<int64_t>(&v)) m->set_i(*i);
    else if (const auto* d = std::get_if<double>(&v)) m->set_d(*d);
    else if (const auto* ints = std::get_if<std::vector<int64_t>>(&v))
      for (int64_t x : *ints) m->mutable_ints()->add_values(x);
  }
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape() || a.dtype() == DType::kString) return false;
  const Tensor ca = a.Contiguous(), cb = b.Contiguous();
  return ca.raw_data() == cb.raw_data() ||
         std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0;
}

void StoreTensor(const Tensor& t, const std::string& name, vtensor::PlanTensorProto* p,
                 std::string* blobs = nullptr) {
  // Small tensors too: a blob is read back without parsing or copying anything (a serialized
  // TensorProto is copied out of the plan message, parsed and copied again).
  if (blobs != nullptr && t.dtype() != DType::kString && t.nbytes() > 0) {
    const Tensor c = t.Contiguous();
    blobs->resize((blobs->size() + kPlanBlobAlign - 1) / kPlanBlobAlign * kPlanBlobAlign, '\0');
    p->set_name(name);
    p->mutable_blob()->set_offset(static_cast<int64_t>(blobs->size()));
    p->mutable_blob()->set_length(static_cast<int64_t>(c.nbytes()));
    p->set_elem(static_cast<int32_t>(c.dtype()));
    for (int64_t d : c.shape()) p->add_dims(d);
    blobs->append(static_cast<const char*>(c.raw_data()), c.nbytes());
    return;
  }
  onnx::TensorProto tp;
  TensorToProto(t.Contiguous(), name, &tp);
  p->set_name(name);
  tp.SerializeToString(p->mutable_tensor());
}

void ReferTensor(const Tensor& t, const std::string& name, vtensor::PlanTensorProto* p) {
  p->set_name(name);
  p->set_source(name);
  p->set_elem(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) p->add_dims(d);
}

void GraphToPlanImpl(const Graph& g, const WriteMode& mode, bool main, PG* p);

// The `value` of a Constant node: a source tensor named after the node's output.
bool IsConstantValue(const Node& n, const Attribute& a) {
  return n.op_type == "Constant" && n.domain.empty() && a.name == "value" &&
         a.type == Attribute::Type::kTensor && n.outputs.size() == 1 && !n.outputs[0].empty();
}

// Whether a main-graph tensor is written as a reference to source tensor `key`.
bool Refers(const WriteMode& mode, const std::string& key, const Tensor& t) {
  if (mode.structure_only) return true;
  if (mode.source == nullptr) return false;
  auto it = mode.source->find(key);
  return it != mode.source->end() && SameTensor(it->second, t);
}

void AttributeToPlan(const Attribute& a, const WriteMode& mode, vtensor::PlanAttributeProto* p) {
  using T = Attribute::Type;
  p->set_name(a.name);
  p->set_type(static_cast<int32_t>(a.type));
  switch (a.type) {
    case T::kFloat: p->set_f(a.f); break;
    case T::kInt: p->set_i(a.i); break;
    case T::kString: p->set_s(a.s); break;
    case T::kTensor:
    case T::kSparseTensor: StoreTensor(a.t, a.t.name(), p->mutable_t(), mode.blobs); break;
    case T::kGraph: GraphToPlanImpl(*a.g, mode, false, p->mutable_g()); break;
    case T::kFloats: for (float x : a.floats) p->add_floats(x); break;
    case T::kInts: for (int64_t x : a.ints) p->add_ints(x); break;
    case T::kStrings: for (const auto& x : a.strings) p->add_strings(x); break;
    case T::kTensors:
      for (const Tensor& x : a.tensors) StoreTensor(x, x.name(), p->add_tensors(), mode.blobs);
      break;
    case T::kGraphs:
      for (const auto& sg : a.graphs) GraphToPlanImpl(*sg, mode, false, p->add_graphs());
      break;
    case T::kTypeProto: TypeToPlan(a.tp, p->mutable_tp()); break;
    case T::kTypeProtos: for (const TypeInfo& t : a.tps) TypeToPlan(t, p->add_tps()); break;
    case T::kUndefined: break;
  }
}

void GraphToPlanImpl(const Graph& g, const WriteMode& mode, bool main, PG* p) {
  p->set_name(g.name);
  for (const Node& n : g.nodes) {
    auto* pn = p->add_node();
    pn->set_name(n.name);
    pn->set_op_type(n.op_type);
    pn->set_domain(n.domain);
    pn->set_opset(n.opset);
    for (const auto& i : n.inputs) pn->add_input(i);
    for (const auto& o : n.outputs) pn->add_output(o);
    for (const auto& [name, a] : n.attrs) {
      auto* pa = pn->add_attribute();
      if (main && IsConstantValue(n, a) && Refers(mode, n.outputs[0], a.t)) {
        pa->set_name(a.name);
        pa->set_type(static_cast<int32_t>(a.type));
        ReferTensor(a.t, n.outputs[0], pa->mutable_t());
        pa->mutable_t()->set_name(a.t.name());
      } else {
        AttributeToPlan(a, mode, pa);
      }
    }
  }
  for (const GraphIO& io : g.inputs) ValueToPlan(io.name, io.spec, p->add_input());
  for (const GraphIO& io : g.outputs) ValueToPlan(io.name, io.spec, p->add_output());
  for (const auto& [name, t] : g.initializers) {
    if (main && Refers(mode, name, t)) ReferTensor(t, name, p->add_initializer());
    else StoreTensor(t, name, p->add_initializer(), mode.blobs);
  }
  // Sorted, so that equal graphs give equal bytes.
  std::map<std::string, const TensorSpec*> values;
  for (const auto& [name, spec] : g.values) values.emplace(name, &spec);
  for (const auto& [name, spec] : values) ValueToPlan(name, *spec, p->add_value());
}

// ---- reading ----

struct Reader {
  const std::map<std::string, Tensor>& source;
  const PlanBlobs& blobs;
  const TensorContext& ctx;
  std::string where;  // "FILE: session plan graph 'NAME'"
};

Status BadField(const Reader& r, const std::string& what) {
  return InvalidArgument(r.where + ": " + what);
}

Expected<TypeInfo> TypeFromPlan(const vtensor::PlanTypeProto& p, const Reader& r, int depth) {
  if (depth > 16) return BadField(r, "type nests deeper than 16 levels");
  if (p.kind() < 0 || p.kind() > static_cast<int>(TypeInfo::Kind::kMap))
    return BadField(r, "type kind " + std::to_string(p.kind()) + " is unknown");
  TypeInfo t;
  t.kind = static_cast<TypeInfo::Kind>(p.kind());
  t.elem = static_cast<DType>(p.elem());
  if (p.has_shape()) {
    SymShape s;
    for (const auto& d : p.shape()) s.push_back(Dim{d.value(), d.param()});
    t.shape = std::move(s);
  }
  if (p.has_inner()) {
    VT_ASSIGN_OR_RETURN(TypeInfo inner, TypeFromPlan(p.inner(), r, depth + 1));
    t.inner = std::make_shared<TypeInfo>(std::move(inner));
  }
  return t;
}

Expected<TensorSpec> ValueFromPlan(const vtensor::PlanValueProto& p, const Reader& r) {
  VT_ASSIGN_OR_RETURN(TypeInfo t, TypeFromPlan(p.type(), r, 0));
  TensorSpec spec(std::move(t));
  for (const auto& m : p.meta()) {
    switch (m.value_case()) {
      case vtensor::PlanMetaProto::kS: spec.SetMeta(m.key(), m.s()); break;
      case vtensor::PlanMetaProto::kI: spec.SetMeta(m.key(), m.i()); break;
      case vtensor::PlanMetaProto::kD: spec.SetMeta(m.key(), m.d()); break;
      case vtensor::PlanMetaProto::kInts:
        spec.SetMeta(m.key(), std::vector<int64_t>(m.ints().values().begin(), m.ints().values().end()));
        break;
      default: return BadField(r, "value '" + p.name() + "': metadata '" + m.key() + "' has no value");
    }
  }
  return spec;
}

// A tensor whose bytes are a blob of the payload: used in place when 64-byte aligned (an
// external payload), copied otherwise.
Expected<Tensor> BlobTensor(const vtensor::PlanTensorProto& p, const Reader& r) {
  const std::string what = "tensor '" + p.name() + "'";
  const DType dt = static_cast<DType>(p.elem());
  if (p.elem() <= 0 || dt == DType::kString || DTypeSize(dt) == 0)
    return BadField(r, what + ": data type " + std::to_string(p.elem()) + " cannot be a blob");
  const Shape shape(p.dims().begin(), p.dims().end());
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0 || d > kMaxTensorElements || (d > 0 && numel > kMaxTensorElements / d))
      return BadField(r, what + ": bad dims");
    numel *= d;
  }
  const uint64_t want = static_cast<uint64_t>(numel) * DTypeSize(dt);
  const int64_t off = p.blob().offset(), len = p.blob().length();
  if (off < 0 || len < 0 || static_cast<uint64_t>(len) != want ||
      static_cast<uint64_t>(off) + static_cast<uint64_t>(len) > r.blobs.size)
    return BadField(r, what + ": blob [" + std::to_string(off) + ", +" + std::to_string(len) +
                           ") is not the " + std::to_string(want) + " bytes of its type inside " +
                           std::to_string(r.blobs.size) + " bytes of tensor data");
  const uint8_t* at = r.blobs.data + off;
  if (reinterpret_cast<uintptr_t>(at) % kPlanBlobAlign == 0 && r.blobs.keep_alive) {
    auto st = Storage::Borrow(at, want, r.blobs.keep_alive, /*read_only=*/true);
    Tensor t(dt, Layout::Contiguous(shape), st);
    t.set_name(p.name());
    return t;
  }
  Tensor t = Tensor::Empty(dt, shape);
  if (want) std::memcpy(t.raw_mutable_data(), at, want);
  t.set_name(p.name());
  return t;
}

Expected<Tensor> TensorFromPlan(const vtensor::PlanTensorProto& p, const Reader& r, bool main) {
  if (p.has_source()) {
    auto it = main ? r.source.find(p.source()) : r.source.end();
    if (it == r.source.end())
      return BadField(r, "initializer '" + p.name() + "': no source initializer '" + p.source() + "'");
    const Tensor& t = it->second;
    const Shape dims(p.dims().begin(), p.dims().end());
    if (static_cast<int32_t>(t.dtype()) != p.elem() || t.shape() != dims)
      return BadField(r, "initializer '" + p.name() + "': the source initializer is " +
                             DTypeName(t.dtype()) + ShapeToString(t.shape()) + ", the plan's " +
                             DTypeName(static_cast<DType>(p.elem())) + ShapeToString(dims));
    return t;
  }
  if (p.has_blob()) return BlobTensor(p, r);
  if (!p.has_tensor()) return BadField(r, "tensor '" + p.name() + "': no data");
  // Parsed in place: the TensorProto's raw_data is the plan message's own bytes only when
  // copied, so small tensors are copied and large ones borrowed through ctx.owner.
  auto tp = std::make_shared<onnx::TensorProto>();
  if (!tp->ParseFromString(p.tensor()))
    return BadField(r, "tensor '" + p.name() + "': not a TensorProto");
  TensorContext c = r.ctx;
  c.external = nullptr;
  c.owner = tp;
  VT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(*tp, c));
  return t;
}

Expected<std::shared_ptr<Graph>> GraphFromPlanImpl(const PG& p, const Reader& outer,
                                                   const Graph* parent, int depth);

Status AttributeFromPlan(const vtensor::PlanAttributeProto& p, const Reader& r, const Graph* owner,
                         int depth, Attribute* a) {
  const bool main = owner->parent == nullptr;
  using T = Attribute::Type;
  if (p.type() < 0 || p.type() > static_cast<int>(T::kSparseTensor))
    return BadField(r, "attribute '" + p.name() + "': type " + std::to_string(p.type()) + " is unknown");
  a->name = p.name();
  a->type = static_cast<T>(p.type());
  a->f = p.f();
  a->i = p.i();
  a->s = p.s();
  if (p.has_t()) {
    VT_ASSIGN_OR_RETURN(a->t, TensorFromPlan(p.t(), r, main));
  }
  if (p.has_g()) {
    VT_ASSIGN_OR_RETURN(a->g, GraphFromPlanImpl(p.g(), r, owner, depth + 1));
  }
  a->floats.assign(p.floats().begin(), p.floats().end());
  a->ints.assign(p.ints().begin(), p.ints().end());
  a->strings.assign(p.strings().begin(), p.strings().end());
  for (const auto& t : p.tensors()) {
    VT_ASSIGN_OR_RETURN(Tensor x, TensorFromPlan(t, r, false));
    a->tensors.push_back(std::move(x));
  }
  for (const auto& g : p.graphs()) {
    VT_ASSIGN_OR_RETURN(auto sg, GraphFromPlanImpl(g, r, owner, depth + 1));
    a->graphs.push_back(std::move(sg));
  }
  if (p.has_tp()) {
    VT_ASSIGN_OR_RETURN(a->tp, TypeFromPlan(p.tp(), r, 0));
  }
  for (const auto& t : p.tps()) {
    VT_ASSIGN_OR_RETURN(TypeInfo x, TypeFromPlan(t, r, 0));
    a->tps.push_back(std::move(x));
  }
  return Status::Ok();
}

Expected<std::shared_ptr<Graph>> GraphFromPlanImpl(const PG& p, const Reader& outer,
                                                   const Graph* parent, int depth) {
  Reader r{outer.source, outer.blobs, outer.ctx,
           outer.ctx.file + ": session plan graph '" + p.name() + "'"};
  if (depth > 32) return BadField(r, "subgraphs nest deeper than 32 levels");
  auto g = std::make_shared<Graph>();
  g->name = p.name();
  g->parent = parent;
  const bool main = parent == nullptr;
  for (const auto& pt : p.initializer()) {
    VT_ASSIGN_OR_RETURN(Tensor t, TensorFromPlan(pt, r, main));
    if (!g->initializers.emplace(pt.name(), std::move(t)).second)
      return BadField(r, "initializer '" + pt.name() + "' appears twice");
  }
  for (const auto& v : p.value()) {
    VT_ASSIGN_OR_RETURN(TensorSpec spec, ValueFromPlan(v, r));
    g->values[v.name()] = std::move(spec);
  }
  for (const auto& v : p.input()) {
    VT_ASSIGN_OR_RETURN(TensorSpec spec, ValueFromPlan(v, r));
    g->inputs.push_back({v.name(), std::move(spec)});
  }
  for (const auto& v : p.output()) {
    VT_ASSIGN_OR_RETURN(TensorSpec spec, ValueFromPlan(v, r));
    g->outputs.push_back({v.name(), std::move(spec)});
  }
  g->nodes.resize(static_cast<size_t>(p.node_size()));
  for (int i = 0; i < p.node_size(); ++i) {
    const auto& pn = p.node(i);
    Node& n = g->nodes[static_cast<size_t>(i)];
    n.name = pn.name();
    n.op_type = pn.op_type();
    n.domain = pn.domain();
    n.opset = pn.opset();
    if (n.op_type.empty()) return BadField(r, "node #" + std::to_string(i) + ": no op_type");
    n.inputs.assign(pn.input().begin(), pn.input().end());
    n.outputs.assign(pn.output().begin(), pn.output().end());
    for (const auto& pa : pn.attribute()) {
      Attribute a;
      VT_RETURN_IF_ERROR(AttributeFromPlan(pa, r, g.get(), depth, &a));
      n.attrs[pa.name()] = std::move(a);
    }
  }
  return g;
}

std::string Hex128(XXH128_hash_t h) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return std::string("xxh3-128:") + buf;
}

}  // namespace

std::map<std::string, Tensor> SourceTensors(const Graph& g) {
  std::map<std::string, Tensor> m = g.initializers;
  for (const Node& n : g.nodes)
    if (auto it = n.attrs.find("value"); it != n.attrs.end() && IsConstantValue(n, it->second))
      m.emplace(n.outputs[0], it->second.t);
  return m;
}

void GraphToPlan(const Graph& g, const std::map<std::string, Tensor>* source, PG* p,
                 std::string* blobs) {
  WriteMode mode;
  mode.source = source;
  mode.blobs = blobs;
  GraphToPlanImpl(g, mode, true, p);
}

Expected<std::shared_ptr<Graph>> GraphFromPlan(const PG& p,
                                               const std::map<std::string, Tensor>& source,
                                               const PlanBlobs& blobs, const Graph* parent,
                                               const TensorContext& ctx) {
  Reader r{source, blobs, ctx, ctx.file};
  return GraphFromPlanImpl(p, r, parent, 0);
}

std::string GraphStructureDigest(const Graph& g) {
  WriteMode mode;
  mode.structure_only = true;
  PG p;
  GraphToPlanImpl(g, mode, true, &p);
  const std::string bytes = p.SerializeAsString();
  return Hex128(XXH3_128bits(bytes.data(), bytes.size()));
}

std::string InitializerDigest(const Graph& g) {
  XXH3_state_t* st = XXH3_createState();
  XXH3_128bits_reset(st);
  for (const auto& [name, t] : SourceTensors(g)) {
    const uint64_t head[2] = {name.size(), static_cast<uint64_t>(t.dtype())};
    XXH3_128bits_update(st, head, sizeof head);
    XXH3_128bits_update(st, name.data(), name.size());
    const uint64_t rank = t.shape().size();
    XXH3_128bits_update(st, &rank, sizeof rank);
    XXH3_128bits_update(st, t.shape().data(), rank * sizeof(int64_t));
    if (t.dtype() == DType::kString) {
      onnx::TensorProto tp;
      TensorToProto(t, name, &tp);
      const std::string b = tp.SerializeAsString();
      XXH3_128bits_update(st, b.data(), b.size());
    } else {
      const Tensor c = t.Contiguous();
      XXH3_128bits_update(st, c.raw_data(), c.nbytes());
    }
  }
  const XXH128_hash_t h = XXH3_128bits_digest(st);
  XXH3_freeState(st);
  return Hex128(h);
}

}  // namespace vt
