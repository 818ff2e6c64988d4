#include "vtensor/passes/static_shapes.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "vtensor/graph/tensor_meta.h"
#include "vtensor/exec/evaluate.h"

namespace vt {

namespace {

// Inputs whose *values* decide an op's output shape: they must be constants.
const std::map<std::string, std::vector<size_t>>& ShapeInputs() {
  static const std::map<std::string, std::vector<size_t>> k = {
      {"Reshape", {1}},        {"Expand", {1}},       {"ConstantOfShape", {0}},
      {"Tile", {1}},           {"Range", {0, 1, 2}},  {"Slice", {1, 2, 3, 4}},
      {"Pad", {1, 3}},         {"Resize", {1, 2, 3}}, {"Upsample", {1}},
      {"Squeeze", {1}},        {"Unsqueeze", {1}},    {"Split", {1}},
      {"TopK", {1}},           {"OneHot", {1}},       {"ReduceSum", {1}},
      {"ReduceMean", {1}},     {"ReduceMax", {1}},    {"ReduceMin", {1}},
      {"ReduceProd", {1}},     {"ReduceL1", {1}},     {"ReduceL2", {1}},
      {"ReduceLogSum", {1}},   {"ReduceLogSumExp", {1}}, {"ReduceSumSquare", {1}},
      {"CenterCropPad", {1}},  {"Compress", {1}},     {"Trilu", {}},
  };
  return k;
}

bool DataDependentShape(const std::string& op) {
  static const std::set<std::string> k = {"NonZero", "Unique", "NonMaxSuppression",
                                          "StringSplit", "RegexFullMatch"};
  return k.count(op) > 0;
}

bool NeverFold(const Node& n) {
  static const std::set<std::string> k = {"RandomUniform", "RandomNormal", "RandomUniformLike",
                                          "RandomNormalLike", "Bernoulli", "Multinomial"};
  return k.count(n.op_type) > 0;
}

bool HasSubgraph(const Node& n) {
  for (const auto& [an, a] : n.attrs)
    if (a.g || !a.graphs.empty()) return true;
  return false;
}

const TensorSpec* FindSpec(const Graph& g, const std::string& name) {
  for (const Graph* s = &g; s != nullptr; s = s->parent) {
    auto it = s->values.find(name);
    if (it != s->values.end()) return &it->second;
  }
  return nullptr;
}

void SetStaticType(TensorSpec& spec, DType dt, const Shape& shape) {
  SymShape s;
  for (int64_t d : shape) s.push_back(Dim{d, ""});
  spec.mutable_type() = TypeInfo::Tensor(dt, s);
}

std::string NodeKey(const Node& n) {
  for (const auto& o : n.outputs)
    if (!o.empty()) return o;
  return "#" + n.name;
}

// Runs one node with the runtime. `fill` is the value of every non-constant input element.
Expected<std::vector<Value>> Evaluate(const Node& n, const Graph& g, const Model& model, int fill) {
  Model mm;
  mm.path = model.path;
  mm.ir_version = model.ir_version;
  mm.opsets = model.opsets;
  mm.graph = std::make_shared<Graph>();
  Graph& eg = *mm.graph;
  eg.name = "eval";
  std::vector<Value> feeds;
  std::set<std::string> seen;
  for (const auto& in : n.inputs) {
    if (in.empty() || !seen.insert(in).second) continue;
    if (const Tensor* c = g.FindInitializer(in)) {
      eg.initializers[in] = *c;
      continue;
    }
    const TensorSpec* spec = FindSpec(g, in);
    if (spec == nullptr || !IsStaticTensor(*spec))
      return InvalidArgument(n.Describe() + ": input '" + in + "' has no static shape");
    if (spec->dtype() == DType::kString)
      return Unimplemented(n.Describe() + ": string input '" + in + "'");
    Tensor t = Tensor::Zeros(spec->dtype(), StaticShape(*spec));
    if (fill != 0 && t.numel() > 0) {
      for (int64_t i = 0; i < t.numel(); ++i) {
        // Element-wise set through the byte representation of the dtype.
        uint8_t* p = static_cast<uint8_t*>(t.raw_mutable_data()) + i * DTypeSize(t.dtype());
        switch (t.dtype()) {
          case DType::kFloat32: { float v = 1; std::memcpy(p, &v, 4); break; }
          case DType::kFloat64: { double v = 1; std::memcpy(p, &v, 8); break; }
          case DType::kFloat16: { uint16_t v = FloatToHalf(1); std::memcpy(p, &v, 2); break; }
          case DType::kBFloat16: { uint16_t v = FloatToBFloat16(1); std::memcpy(p, &v, 2); break; }
          default: p[0] = 1; break;  // little-endian integer / bool 1
        }
      }
    }
    eg.inputs.push_back({in, TensorSpec(TypeInfo::Tensor(spec->dtype(), std::nullopt))});
    feeds.emplace_back(std::move(t));
  }
  eg.nodes.push_back(n);
  for (const auto& o : n.outputs)
    if (!o.empty()) eg.outputs.push_back({o, TensorSpec()});
  return EvaluateModel(mm, feeds);
}

Expected<std::vector<Value>> EvaluateAny(const Node& n, const Graph& g, const Model& model) {
  auto r = Evaluate(n, g, model, 0);
  if (r.ok()) return r;
  auto r1 = Evaluate(n, g, model, 1);  // e.g. integer division by a zero placeholder
  if (r1.ok()) return r1;
  return r;
}

Status SpecializeGraph(Graph& g, const Model& model, const StaticShapeOptions& opts);

// Replaces the If at `idx` by the nodes of its taken branch.
void InlineBranch(Graph& g, size_t idx, bool cond) {
  Node node = std::move(g.nodes[idx]);
  g.nodes.erase(g.nodes.begin() + static_cast<std::ptrdiff_t>(idx));
  const Attribute* a = node.FindAttr(cond ? "then_branch" : "else_branch");
  std::shared_ptr<Graph> br = a->g;
  for (auto& [name, t] : br->initializers) g.initializers[name] = t;
  for (auto& [name, spec] : br->values)
    if (!g.values.count(name)) g.values[name] = spec;
  for (auto& n : br->nodes) {
    for (auto& [an, attr] : n.attrs) {
      if (attr.g) attr.g->parent = &g;
      for (auto& sg : attr.graphs) sg->parent = &g;
    }
    g.nodes.push_back(std::move(n));
  }
  for (size_t i = 0; i < node.outputs.size() && i < br->outputs.size(); ++i) {
    if (node.outputs[i].empty()) continue;
    Node id;
    id.op_type = "Identity";
    id.opset = node.opset;
    id.name = node.name + "/" + node.outputs[i];
    id.inputs = {br->outputs[i].name};
    id.outputs = {node.outputs[i]};
    g.nodes.push_back(std::move(id));
  }
}

Status SpecializeIf(Graph& g, Node& n, const Model& model, const StaticShapeOptions& opts) {
  const Attribute* th = n.FindAttr("then_branch");
  const Attribute* el = n.FindAttr("else_branch");
  if (th == nullptr || !th->g || el == nullptr || !el->g)
    return InvalidArgument(n.Describe() + ": missing then_branch / else_branch");
  VT_RETURN_IF_ERROR_CTX(SpecializeGraph(*th->g, model, opts), n.Describe() + " then_branch");
  VT_RETURN_IF_ERROR_CTX(SpecializeGraph(*el->g, model, opts), n.Describe() + " else_branch");
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (n.outputs[i].empty()) continue;
    if (i >= th->g->outputs.size() || i >= el->g->outputs.size())
      return InvalidArgument(n.Describe() + ": branches have fewer outputs than the node");
    const TensorSpec* a = FindSpec(*th->g, th->g->outputs[i].name);
    const TensorSpec* b = FindSpec(*el->g, el->g->outputs[i].name);
    if (a == nullptr || b == nullptr || !IsStaticTensor(*a) || !IsStaticTensor(*b))
      return InvalidArgument(n.Describe() + ": output " + std::to_string(i) + " has no static type");
    if (a->dtype() != b->dtype() || StaticShape(*a) != StaticShape(*b))
      return InvalidArgument(n.Describe() + ": output " + std::to_string(i) + " is " +
                             a->type().ToString() + " in then_branch but " + b->type().ToString() +
                             " in else_branch");
    SetStaticType(g.values[n.outputs[i]], a->dtype(), StaticShape(*a));
  }
  return Status::Ok();
}

Status SpecializeGraph(Graph& g, const Model& model, const StaticShapeOptions& opts) {
  std::set<std::string> done;
  for (;;) {
    VT_ASSIGN_OR_RETURN(std::vector<size_t> order, g.TopologicalOrder());
    std::vector<bool> remove(g.nodes.size(), false);
    std::string inline_key;
    bool inline_cond = false;
    for (size_t idx : order) {
      Node& n = g.nodes[idx];
      const std::string key = NodeKey(n);
      if (done.count(key)) continue;
      if (n.op_type == "If" && n.domain.empty()) {
        const Tensor* c = n.inputs.empty() ? nullptr : g.FindInitializer(n.inputs[0]);
        if (c != nullptr && c->numel() == 1) {
          inline_key = key;
          inline_cond = c->GetInt64(0) != 0;
          break;
        }
        VT_RETURN_IF_ERROR(SpecializeIf(g, n, model, opts));
        done.insert(key);
        continue;
      }
      if (HasSubgraph(n))
        return Unimplemented(n.Describe() + ": ops with subgraphs other than If cannot be "
                             "specialized to static shapes");
      if (DataDependentShape(n.op_type))
        return Unimplemented(n.Describe() + ": the output shape depends on input values");
      bool all_const = !n.inputs.empty();
      for (const auto& in : n.inputs)
        if (!in.empty() && g.FindInitializer(in) == nullptr) all_const = false;
      const bool shape_only = (n.op_type == "Shape" || n.op_type == "Size") && n.domain.empty();
      if (!all_const && !shape_only) {
        auto it = ShapeInputs().find(n.op_type);
        if (n.domain.empty() && it != ShapeInputs().end())
          for (size_t k : it->second)
            if (k < n.inputs.size() && !n.inputs[k].empty() && g.FindInitializer(n.inputs[k]) == nullptr)
              return InvalidArgument(n.Describe() + ": input " + std::to_string(k) + " ('" +
                                     n.inputs[k] + "') decides the output shape but is not a "
                                     "constant after shape specialization");
      }
      VT_ASSIGN_OR_RETURN(std::vector<Value> outs, EvaluateAny(n, g, model));
      size_t bytes = 0;
      for (size_t o = 0; o < outs.size(); ++o) {
        if (!outs[o].is_tensor())
          return Unimplemented(n.Describe() + ": output " + std::to_string(o) +
                               " is not a tensor (sequences and optionals are not exported)");
        bytes += outs[o].tensor().nbytes();
      }
      const bool fold = (all_const || shape_only) && !NeverFold(n) && bytes <= opts.max_fold_bytes;
      size_t k = 0;
      for (const auto& o : n.outputs) {
        if (o.empty()) continue;
        const Tensor& t = outs[k++].tensor();
        TensorSpec& spec = g.values[o];
        SetStaticType(spec, t.dtype(), t.shape());
        if (fold) {
          Tensor c = t.Contiguous();
          c.set_name(o);
          spec.set_identity(o);
          if (auto e = EncodingFromDType(c.dtype())) SetTensorEncoding(spec, *e);
          g.initializers[o] = std::move(c);
        }
      }
      if (fold) remove[idx] = true;
      done.insert(key);
    }
    std::vector<Node> kept;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (!remove[i]) kept.push_back(std::move(g.nodes[i]));
    g.nodes = std::move(kept);
    if (inline_key.empty()) break;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (NodeKey(g.nodes[i]) == inline_key) {
        InlineBranch(g, i, inline_cond);
        break;
      }
  }
  for (auto& o : g.outputs) {
    const TensorSpec* s = FindSpec(g, o.name);
    if (s == nullptr || !IsStaticTensor(*s))
      return InvalidArgument("graph '" + g.name + "': output '" + o.name + "' has no static type");
    o.spec.mutable_type() = s->type();
  }
  return Status::Ok();
}

}  // namespace

bool IsStaticTensor(const TensorSpec& spec) {
  const TypeInfo& t = spec.type();
  if (t.kind != TypeInfo::Kind::kTensor || !t.shape || t.elem == DType::kUndefined) return false;
  for (const Dim& d : *t.shape)
    if (!d.known()) return false;
  return true;
}

Shape StaticShape(const TensorSpec& spec) {
  Shape s;
  if (spec.shape())
    for (const Dim& d : *spec.shape()) s.push_back(d.value);
  return s;
}

Status SpecializeShapes(Model& model, const StaticShapeOptions& opts) {
  if (!model.graph) return InvalidArgument("model has no graph");
  Graph& g = *model.graph;
  for (const auto& [name, shape] : opts.input_shapes) {
    bool found = false;
    for (const GraphIO* in : g.RealInputs()) found = found || in->name == name;
    if (!found) return InvalidArgument("--input-shape names '" + name + "', which is not a graph input");
  }
  for (const auto& [name, values] : opts.input_values) {
    auto it = std::find_if(g.inputs.begin(), g.inputs.end(),
                           [&want = name](const GraphIO& io) { return io.name == want; });
    if (it == g.inputs.end() || g.initializers.count(name))
      return InvalidArgument("--input-value names '" + name + "', which is not a graph input");
    const TypeInfo& t = it->spec.type();
    if (t.kind != TypeInfo::Kind::kTensor || (!IsFloatDType(t.elem) && !IsIntegerDType(t.elem) &&
                                              t.elem != DType::kBool))
      return InvalidArgument("input '" + name + "': only numeric tensors can be bound to values");
    const bool scalar = t.shape && t.shape->empty();
    if (scalar && values.size() != 1)
      return InvalidArgument("input '" + name + "' is a scalar; give exactly one value");
    Shape shape = scalar ? Shape{} : Shape{static_cast<int64_t>(values.size())};
    if (t.shape && !scalar && t.shape->size() != 1)
      return InvalidArgument("input '" + name + "': only rank-0 and rank-1 inputs can be bound to values");
    Tensor v = Tensor::Empty(t.elem, shape);
    for (size_t i = 0; i < values.size(); ++i) {
      uint8_t* p = static_cast<uint8_t*>(v.raw_mutable_data()) + i * DTypeSize(t.elem);
      const double x = values[i];
      switch (t.elem) {
        case DType::kFloat32: { float f = static_cast<float>(x); std::memcpy(p, &f, 4); break; }
        case DType::kFloat64: std::memcpy(p, &x, 8); break;
        case DType::kFloat16: { uint16_t h = FloatToHalf(static_cast<float>(x)); std::memcpy(p, &h, 2); break; }
        case DType::kBFloat16: { uint16_t h = FloatToBFloat16(static_cast<float>(x)); std::memcpy(p, &h, 2); break; }
        case DType::kBool: *p = x != 0; break;
        default: {
          const int64_t iv = static_cast<int64_t>(x);
          std::memcpy(p, &iv, DTypeSize(t.elem));  // little-endian truncation
        }
      }
    }
    v.set_name(name);
    TensorSpec& spec = g.values[name];
    SetStaticType(spec, t.elem, shape);
    spec.set_identity(name);
    g.initializers[name] = std::move(v);
    g.inputs.erase(it);
  }
  for (auto& in : g.inputs) {
    if (g.initializers.count(in.name)) continue;
    const TypeInfo& t = in.spec.type();
    if (t.kind != TypeInfo::Kind::kTensor)
      return Unimplemented("input '" + in.name + "': only tensor inputs can be exported");
    auto given = opts.input_shapes.find(in.name);
    Shape shape;
    if (given != opts.input_shapes.end()) {
      shape = given->second;
      if (t.shape) {
        if (t.shape->size() != shape.size())
          return InvalidArgument("input '" + in.name + "': shape " + ShapeToString(shape) +
                                 " has rank " + std::to_string(shape.size()) + ", the model declares " +
                                 SymShapeToString(*t.shape));
        for (size_t d = 0; d < shape.size(); ++d)
          if ((*t.shape)[d].known() && (*t.shape)[d].value != shape[d])
            return InvalidArgument("input '" + in.name + "': dim " + std::to_string(d) + " is " +
                                   std::to_string((*t.shape)[d].value) + " in the model, not " +
                                   std::to_string(shape[d]));
      }
    } else {
      if (!t.shape) return InvalidArgument("input '" + in.name + "' has unknown rank; pass --input-shape");
      for (size_t d = 0; d < t.shape->size(); ++d) {
        if (!(*t.shape)[d].known())
          return InvalidArgument("input '" + in.name + "': dim " + std::to_string(d) + " ('" +
                                 ((*t.shape)[d].param.empty() ? "?" : (*t.shape)[d].param) +
                                 "') is dynamic; pass --input-shape " + in.name + "=D0x...");
        shape.push_back((*t.shape)[d].value);
      }
    }
    SetStaticType(in.spec, t.elem, shape);
    TensorSpec& vs = g.values[in.name];
    SetStaticType(vs, t.elem, shape);
  }
  return SpecializeGraph(g, model, opts);
}

}  // namespace vt
