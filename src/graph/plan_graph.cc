#include "vtensor/graph/plan_graph.h"

#include <onnx/onnx_pb.h>
#include <xxhash.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "graph/plan_wire.h"

namespace vt {

namespace {

using PG = vtensor::PlanGraphProto;

// What a plan writer does with main-graph initializers.
struct WriteMode {
  const std::map<std::string, Tensor>* source = nullptr;  // equal ones become references
  bool structure_only = false;                            // every one a reference
  std::string* blobs = nullptr;  // large tensors' bytes appended here (64-aligned)
  std::set<std::string>* referred = nullptr;  // the source tensors written as references
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
  const bool refers = it != mode.source->end() && SameTensor(it->second, t);
  if (refers && mode.referred != nullptr) mode.referred->insert(key);
  return refers;
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
//
// The plan graph is read from its wire bytes in place (graph/plan_wire.h). A field of a known
// number but another wire type is skipped, as protobuf skips it; of a singular field repeated
// in the bytes the last counts.

using plan_wire::Field;
using plan_wire::kFixed32;
using plan_wire::kFixed64;
using plan_wire::kLen;
using plan_wire::kVarint;
using WireReader = plan_wire::Reader;

struct ReadCtx {
  const std::map<std::string, Tensor>& source;
  const PlanBlobs& blobs;
  const TensorContext& ctx;
  std::string where;  // "FILE: session plan graph 'NAME'"
};

Status BadField(const ReadCtx& r, const std::string& what) {
  return InvalidArgument(r.where + ": " + what);
}

Status Malformed(const ReadCtx& r, const std::string& what) {
  return BadField(r, what + ": malformed bytes (not the wire format of the plan messages)");
}

int32_t AsInt32(const Field& f) { return static_cast<int32_t>(f.value); }
// An occurrence of a repeated int64 field: one varint, or packed ones.
bool IsInt64s(const Field& f) { return f.type == kVarint || f.type == kLen; }
int64_t AsInt64(const Field& f) { return static_cast<int64_t>(f.value); }

// PlanDimProto.
Status DimFromPlan(const Field& bytes, const ReadCtx& r, Dim* d) {
  d->value = 0;
  WireReader w(bytes);
  Field f;
  while (w.Next(&f)) {
    if (f.number == 1 && f.type == kVarint) d->value = AsInt64(f);
    else if (f.number == 2 && f.type == kLen) d->param = f.str();
  }
  return w.bad() ? Malformed(r, "type dim") : Status::Ok();
}

// PlanTypeProto.
Expected<TypeInfo> TypeFromPlan(const Field& bytes, const ReadCtx& r, int depth) {
  if (depth > 16) return BadField(r, "type nests deeper than 16 levels");
  int32_t kind = 0;
  bool has_shape = false;
  TypeInfo t;
  SymShape s;
  Field inner;
  bool has_inner = false;
  WireReader w(bytes);
  Field f;
  while (w.Next(&f)) {
    switch (f.number) {
      case 1: if (f.type == kVarint) kind = AsInt32(f); break;
      case 2: if (f.type == kVarint) t.elem = static_cast<DType>(AsInt32(f)); break;
      case 3: if (f.type == kVarint) has_shape = f.value != 0; break;
      case 4:
        if (f.type == kLen) VT_RETURN_IF_ERROR(DimFromPlan(f, r, &s.emplace_back()));
        break;
      case 5:
        if (f.type == kLen) inner = f, has_inner = true;
        break;
      default: break;
    }
  }
  if (w.bad()) return Malformed(r, "type");
  if (kind < 0 || kind > static_cast<int>(TypeInfo::Kind::kMap))
    return BadField(r, "type kind " + std::to_string(kind) + " is unknown");
  t.kind = static_cast<TypeInfo::Kind>(kind);
  if (has_shape) t.shape = std::move(s);
  if (has_inner) {
    VT_ASSIGN_OR_RETURN(TypeInfo in, TypeFromPlan(inner, r, depth + 1));
    t.inner = std::make_shared<TypeInfo>(std::move(in));
  }
  return t;
}

// PlanMetaProto into `spec`.
Status MetaFromPlan(const Field& bytes, const std::string& value, const ReadCtx& r,
                    TensorSpec* spec) {
  std::string key;
  Field v;
  bool has_value = false;
  WireReader w(bytes);
  Field f;
  while (w.Next(&f)) {
    if (f.number == 1 && f.type == kLen) key = f.str();
    else if ((f.number == 2 && f.type == kLen) || (f.number == 3 && f.type == kVarint) ||
             (f.number == 4 && f.type == kFixed64) || (f.number == 5 && f.type == kLen))
      v = f, has_value = true;
  }
  if (w.bad()) return Malformed(r, "value '" + value + "': metadata");
  if (!has_value) return BadField(r, "value '" + value + "': metadata '" + key + "' has no value");
  switch (v.number) {
    case 2: spec->SetMeta(key, v.str()); break;
    case 3: spec->SetMeta(key, AsInt64(v)); break;
    case 4: spec->SetMeta(key, plan_wire::AsDouble(v)); break;
    default: {
      std::vector<int64_t> ints;
      WireReader iw(v);
      Field x;
      bool ok = true;
      while (ok && iw.Next(&x))
        if (x.number == 1 && IsInt64s(x)) ok = plan_wire::AppendInt64s(x, &ints);
      if (!ok || iw.bad()) return Malformed(r, "value '" + value + "': metadata '" + key + "'");
      spec->SetMeta(key, std::move(ints));
    }
  }
  return Status::Ok();
}

// PlanValueProto: its name and spec. Metadata is read after the type, wherever it lies.
Status ValueFromPlan(const Field& bytes, const ReadCtx& r, std::string* name, TensorSpec* spec) {
  Field type;  // absent: the default (empty) PlanTypeProto
  WireReader w(bytes);
  Field f;
  while (w.Next(&f)) {
    if (f.number == 1 && f.type == kLen) *name = f.str();
    else if (f.number == 2 && f.type == kLen) type = f;
  }
  if (w.bad()) return Malformed(r, "value '" + *name + "'");
  VT_ASSIGN_OR_RETURN(TypeInfo t, TypeFromPlan(type, r, 0));
  *spec = TensorSpec(std::move(t));
  WireReader m(bytes);
  while (m.Next(&f))
    if (f.number == 3 && f.type == kLen) VT_RETURN_IF_ERROR(MetaFromPlan(f, *name, r, spec));
  return Status::Ok();
}

// PlanTensorProto's fields.
struct PlanTensor {
  std::string name;
  uint32_t data = 0;  // the field number of the `data` case set last (0: none)
  Field bytes;        // data 2 (tensor), 3 (source) or 6 (blob)
  int32_t elem = 0;
  Shape dims;
};

Status ReadPlanTensor(const Field& bytes, const ReadCtx& r, PlanTensor* t) {
  WireReader w(bytes);
  Field f;
  while (w.Next(&f)) {
    switch (f.number) {
      case 1: if (f.type == kLen) t->name = f.str(); break;
      case 2:
      case 3:
      case 6:
        if (f.type == kLen) t->data = f.number, t->bytes = f;
        break;
      case 4: if (f.type == kVarint) t->elem = AsInt32(f); break;
      case 5:
        if (IsInt64s(f) && !plan_wire::AppendInt64s(f, &t->dims))
          return Malformed(r, "tensor '" + t->name + "'");
        break;
      default: break;
    }
  }
  return w.bad() ? Malformed(r, "tensor '" + t->name + "'") : Status::Ok();
}

// A tensor whose bytes are a blob of the payload: used in place when 64-byte aligned (an
// external payload), copied otherwise.
Expected<Tensor> BlobTensor(const PlanTensor& p, const ReadCtx& r) {
  const std::string what = "tensor '" + p.name + "'";
  const DType dt = static_cast<DType>(p.elem);
  if (p.elem <= 0 || dt == DType::kString || DTypeSize(dt) == 0)
    return BadField(r, what + ": data type " + std::to_string(p.elem) + " cannot be a blob");
  int64_t numel = 1;
  for (int64_t d : p.dims) {
    if (d < 0 || d > kMaxTensorElements || (d > 0 && numel > kMaxTensorElements / d))
      return BadField(r, what + ": bad dims");
    numel *= d;
  }
  const uint64_t want = static_cast<uint64_t>(numel) * DTypeSize(dt);
  int64_t off = 0, len = 0;
  WireReader w(p.bytes);
  Field f;
  while (w.Next(&f)) {
    if (f.number == 1 && f.type == kVarint) off = AsInt64(f);
    else if (f.number == 2 && f.type == kVarint) len = AsInt64(f);
  }
  if (w.bad()) return Malformed(r, what + ": blob");
  if (off < 0 || len < 0 || static_cast<uint64_t>(len) != want ||
      static_cast<uint64_t>(off) + static_cast<uint64_t>(len) > r.blobs.size)
    return BadField(r, what + ": blob [" + std::to_string(off) + ", +" + std::to_string(len) +
                           ") is not the " + std::to_string(want) + " bytes of its type inside " +
                           std::to_string(r.blobs.size) + " bytes of tensor data");
  const uint8_t* at = r.blobs.data + off;
  const bool aligned = reinterpret_cast<uintptr_t>(at) % kPlanBlobAlign == 0;
  if ((aligned || r.blobs.borrow_misaligned) && r.blobs.keep_alive) {
    auto st = Storage::Borrow(at, want, r.blobs.keep_alive, /*read_only=*/true);
    Tensor t(dt, Layout::Contiguous(p.dims), st);
    t.set_name(p.name);
    return t;
  }
  Tensor t = Tensor::Empty(dt, p.dims);
  if (want) std::memcpy(t.raw_mutable_data(), at, want);
  t.set_name(p.name);
  return t;
}

// `name`, when given: the PlanTensorProto's own name (a source tensor keeps the source's).
Expected<Tensor> TensorFromPlan(const Field& bytes, const ReadCtx& r, bool main,
                                std::string* name = nullptr) {
  PlanTensor p;
  VT_RETURN_IF_ERROR(ReadPlanTensor(bytes, r, &p));
  if (name != nullptr) *name = p.name;
  if (p.data == 3) {
    const std::string source = p.bytes.str();
    auto it = main ? r.source.find(source) : r.source.end();
    if (it == r.source.end())
      return BadField(r, "initializer '" + p.name + "': no source initializer '" + source + "'");
    const Tensor& t = it->second;
    if (static_cast<int32_t>(t.dtype()) != p.elem || t.shape() != p.dims)
      return BadField(r, "initializer '" + p.name + "': the source initializer is " +
                             DTypeName(t.dtype()) + ShapeToString(t.shape()) + ", the plan's " +
                             DTypeName(static_cast<DType>(p.elem)) + ShapeToString(p.dims));
    return t;
  }
  if (p.data == 6) return BlobTensor(p, r);
  if (p.data != 2) return BadField(r, "tensor '" + p.name + "': no data");
  // Parsed into its own message, which the tensor's storage may borrow.
  auto tp = std::make_shared<onnx::TensorProto>();
  if (p.bytes.size > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !tp->ParseFromArray(p.bytes.data, static_cast<int>(p.bytes.size)))
    return BadField(r, "tensor '" + p.name + "': not a TensorProto");
  TensorContext c = r.ctx;
  c.external = nullptr;
  c.owner = tp;
  VT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(*tp, c));
  return t;
}

Expected<std::shared_ptr<Graph>> GraphFromPlanImpl(const Field& bytes, const ReadCtx& outer,
                                                   const Graph* parent, int depth);

// PlanAttributeProto: its scalar and repeated scalar fields first, then its tensors, graphs
// and types.
Status AttributeFromPlan(const Field& bytes, const ReadCtx& r, const Graph* owner, int depth,
                         Attribute* a) {
  const bool main = owner->parent == nullptr;
  using T = Attribute::Type;
  int32_t type = 0;
  WireReader w(bytes);
  Field f;
  bool ok = true;
  while (ok && w.Next(&f)) {
    switch (f.number) {
      case 1: if (f.type == kLen) a->name = f.str(); break;
      case 2: if (f.type == kVarint) type = AsInt32(f); break;
      case 3:
        if (f.type == kFixed32) {
          const auto b = static_cast<uint32_t>(f.value);
          std::memcpy(&a->f, &b, sizeof a->f);
        }
        break;
      case 4: if (f.type == kVarint) a->i = AsInt64(f); break;
      case 5: if (f.type == kLen) a->s = f.str(); break;
      case 8:
        if (f.type == kFixed32 || f.type == kLen) ok = plan_wire::AppendFloats(f, &a->floats);
        break;
      case 9:
        if (IsInt64s(f)) ok = plan_wire::AppendInt64s(f, &a->ints);
        break;
      case 10: if (f.type == kLen) a->strings.push_back(f.str()); break;
      default: break;
    }
  }
  if (!ok || w.bad()) return Malformed(r, "attribute '" + a->name + "'");
  if (type < 0 || type > static_cast<int>(T::kSparseTensor))
    return BadField(r, "attribute '" + a->name + "': type " + std::to_string(type) + " is unknown");
  a->type = static_cast<T>(type);
  WireReader m(bytes);
  while (m.Next(&f)) {
    if (f.type != kLen) continue;
    switch (f.number) {
      case 6: {
        VT_ASSIGN_OR_RETURN(a->t, TensorFromPlan(f, r, main));
        break;
      }
      case 7: {
        VT_ASSIGN_OR_RETURN(a->g, GraphFromPlanImpl(f, r, owner, depth + 1));
        break;
      }
      case 11: {
        VT_ASSIGN_OR_RETURN(Tensor x, TensorFromPlan(f, r, false));
        a->tensors.push_back(std::move(x));
        break;
      }
      case 12: {
        VT_ASSIGN_OR_RETURN(auto sg, GraphFromPlanImpl(f, r, owner, depth + 1));
        a->graphs.push_back(std::move(sg));
        break;
      }
      case 13: {
        VT_ASSIGN_OR_RETURN(a->tp, TypeFromPlan(f, r, 0));
        break;
      }
      case 14: {
        VT_ASSIGN_OR_RETURN(TypeInfo x, TypeFromPlan(f, r, 0));
        a->tps.push_back(std::move(x));
        break;
      }
      default: break;
    }
  }
  return Status::Ok();
}

// PlanNodeProto `i` of its graph.
Status NodeFromPlan(const Field& bytes, const ReadCtx& r, const Graph* owner, int depth, size_t i,
                    Node* n) {
  WireReader w(bytes);
  Field f;
  while (w.Next(&f)) {
    switch (f.number) {
      case 1: if (f.type == kLen) n->name = f.str(); break;
      case 2: if (f.type == kLen) n->op_type = f.str(); break;
      case 3: if (f.type == kLen) n->domain = f.str(); break;
      case 4: if (f.type == kVarint) n->opset = AsInt64(f); break;
      case 5: if (f.type == kLen) n->inputs.push_back(f.str()); break;
      case 6: if (f.type == kLen) n->outputs.push_back(f.str()); break;
      case 7:
        if (f.type == kLen) {
          Attribute a;
          VT_RETURN_IF_ERROR(AttributeFromPlan(f, r, owner, depth, &a));
          std::string name = a.name;
          n->attrs.insert_or_assign(std::move(name), std::move(a));
        }
        break;
      default: break;
    }
  }
  if (w.bad()) return Malformed(r, "node #" + std::to_string(i));
  if (n->op_type.empty()) return BadField(r, "node #" + std::to_string(i) + ": no op_type");
  return Status::Ok();
}

// PlanGraphProto. A first pass finds the graph's name (for messages) and counts its nodes, so
// the node vector is sized once.
Expected<std::shared_ptr<Graph>> GraphFromPlanImpl(const Field& bytes, const ReadCtx& outer,
                                                   const Graph* parent, int depth) {
  auto g = std::make_shared<Graph>();
  size_t nodes = 0, values = 0;
  {
    WireReader w(bytes);
    Field f;
    while (w.Next(&f)) {
      if (f.type != kLen) continue;
      if (f.number == 1) g->name = f.str();
      nodes += f.number == 2;
      values += f.number == 6;
    }
    if (w.bad()) return Malformed(outer, "session plan graph");
  }
  ReadCtx r{outer.source, outer.blobs, outer.ctx,
            outer.ctx.file + ": session plan graph '" + g->name + "'"};
  if (depth > 32) return BadField(r, "subgraphs nest deeper than 32 levels");
  g->parent = parent;
  const bool main = parent == nullptr;
  g->nodes.reserve(nodes);
  g->values.reserve(values);
  // Initializers, values, inputs, outputs, then nodes, whatever their order in the bytes: the
  // first problem reported is the same for any writer.
  for (const uint32_t number : {5u, 6u, 3u, 4u, 2u}) {
    WireReader w(bytes);
    Field f;
    while (w.Next(&f)) {
      if (f.type != kLen || f.number != number) continue;
      switch (number) {
        case 2: {
          const size_t i = g->nodes.size();
          VT_RETURN_IF_ERROR(NodeFromPlan(f, r, g.get(), depth, i, &g->nodes.emplace_back()));
          break;
        }
        case 3:
        case 4: {
          GraphIO io;
          VT_RETURN_IF_ERROR(ValueFromPlan(f, r, &io.name, &io.spec));
          (number == 3 ? g->inputs : g->outputs).push_back(std::move(io));
          break;
        }
        case 5: {
          std::string name;
          VT_ASSIGN_OR_RETURN(Tensor t, TensorFromPlan(f, r, main, &name));
          if (!g->initializers.emplace(name, std::move(t)).second)
            return BadField(r, "initializer '" + name + "' appears twice");
          break;
        }
        default: {
          std::string name;
          TensorSpec spec;
          VT_RETURN_IF_ERROR(ValueFromPlan(f, r, &name, &spec));
          g->values[name] = std::move(spec);
        }
      }
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
                 std::string* blobs, std::set<std::string>* referred) {
  WriteMode mode;
  mode.source = source;
  mode.blobs = blobs;
  mode.referred = referred;
  GraphToPlanImpl(g, mode, true, p);
}

void SourcesToPlan(const std::map<std::string, Tensor>& tensors,
                   const std::map<std::string, PlanFileSpan>& in_file, PG* p) {
  p->set_name("sources");
  for (const auto& [name, t] : tensors) {
    auto* pt = p->add_initializer();
    auto span = in_file.find(name);
    const bool ranged = span != in_file.end() && t.dtype() != DType::kString &&
                        DTypeSize(t.dtype()) > 0 && span->second.length == t.nbytes();
    if (!ranged) {
      StoreTensor(t, name, pt);
      continue;
    }
    pt->set_name(name);
    pt->mutable_blob()->set_offset(static_cast<int64_t>(span->second.offset));
    pt->mutable_blob()->set_length(static_cast<int64_t>(span->second.length));
    pt->set_elem(static_cast<int32_t>(t.dtype()));
    for (int64_t d : t.shape()) pt->add_dims(d);
  }
}

Expected<std::shared_ptr<Graph>> GraphFromPlan(const uint8_t* data, size_t size,
                                               const std::map<std::string, Tensor>& source,
                                               const PlanBlobs& blobs, const Graph* parent,
                                               const TensorContext& ctx) {
  const ReadCtx r{source, blobs, ctx, ctx.file};
  Field whole;
  whole.type = kLen;
  whole.data = data;
  whole.size = size;
  return GraphFromPlanImpl(whole, r, parent, 0);
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
