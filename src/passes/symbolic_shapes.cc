#include "passes/symbolic_shapes.h"

#include "vtensor/graph/fused_attributes.h"
#include "vtensor/graph/fused_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace vt {

bool SymValue::AllElemsKnown() const {
  if (!has_elems) return false;
  for (const SymInt& e : elems)
    if (e.sym) return false;
  return true;
}

namespace {

// Unary ops whose output has the input's shape (element values are not tracked through them,
// except Identity / Cast / Neg below).
const std::set<std::string>& SameShapeOps() {
  static const std::set<std::string> k = {
      "Identity", "Cast", "CastLike", "Neg", "Abs", "Relu", "Sigmoid", "Tanh", "Erf", "Sqrt",
      "Exp", "Log", "Reciprocal", "Floor", "Ceil", "Round", "Not", "Softmax", "LogSoftmax",
      "Gelu", "HardSwish", "HardSigmoid", "LeakyRelu", "Elu", "Selu", "Softplus", "Softsign",
      "Clip", "Trilu", "LayerNormalization", "RMSNormalization", "SimplifiedLayerNormalization",
      "Sin", "Cos", "IsNaN", "IsInf", "Sign", "Dropout", "Mish", "Celu", "ThresholdedRelu"};
  return k;
}

const std::set<std::string>& BroadcastOps() {
  static const std::set<std::string> k = {"Add", "Sub",  "Mul",     "Div",          "Pow",
                                          "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                                          "And", "Or",   "Xor",     "Mod",          "Where",
                                          "Max", "Min",  "Sum",     "Mean",         "PRelu",
                                          "BitShift"};
  return k;
}

bool IsIntType(DType t) { return t == DType::kInt64 || t == DType::kInt32; }

std::optional<int64_t> NormAxis(int64_t a, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (a < -r || a >= r) return std::nullopt;
  return a < 0 ? a + r : a;
}

}  // namespace

SymbolicShapes::SymbolicShapes(const Graph& graph) : graph_(graph) {
  for (const auto& [name, t] : graph.initializers) {
    SymValue v;
    v.has_rank = true;
    for (int64_t d : t.shape()) v.dims.push_back(SymInt::Known(d));
    if (IsIntType(t.dtype()) && t.rank() <= 1 &&
        t.numel() <= static_cast<int64_t>(SymValue::kMaxElems)) {
      v.has_elems = true;
      v.elem_dtype = t.dtype();
      for (int64_t i = 0; i < t.numel(); ++i) v.elems.push_back(SymInt::Known(t.GetInt64(i)));
    }
    values_[name] = std::move(v);
  }
  for (const auto& in : graph.inputs) {
    if (graph.initializers.count(in.name)) continue;
    const auto& shape = in.spec.shape();
    if (!shape) continue;
    SymValue v;
    v.has_rank = true;
    for (const Dim& d : *shape)
      v.dims.push_back(d.known() ? SymInt::Known(d.value) : d.param.empty() ? Fresh() : Named(d.param));
    values_[in.name] = std::move(v);
  }
  auto order = graph.TopologicalOrder();
  if (!order.ok()) return;
  for (size_t i : *order) Visit(graph.nodes[i]);
}

SymInt SymbolicShapes::Fresh() { return {next_symbol_++, true}; }

SymInt SymbolicShapes::Named(const std::string& dim_param) {
  auto it = named_.find(dim_param);
  if (it != named_.end()) return it->second;
  SymInt s = Fresh();
  named_[dim_param] = s;
  symbol_names_[s.v] = dim_param;
  return s;
}

SymInt SymbolicShapes::Combine(const std::string& op, SymInt a, SymInt b) {
  if ((op == "Add" || op == "Mul" || op == "Broadcast") &&
      std::make_pair(b.sym, b.v) < std::make_pair(a.sym, a.v))
    std::swap(a, b);
  auto key = std::make_tuple(op, a.v, a.sym, b.v, b.sym);
  auto it = combined_.find(key);
  if (it != combined_.end()) return it->second;
  SymInt s = Fresh();
  combined_[key] = s;
  return s;
}

SymInt SymbolicShapes::Broadcast(SymInt a, SymInt b) {
  if (a == b || b.Is(1)) return a;
  if (a.Is(1)) return b;
  return Combine("Broadcast", a, b);
}

const SymValue* SymbolicShapes::Find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

std::optional<size_t> SymbolicShapes::Rank(const std::string& name) const {
  const SymValue* v = Find(name);
  if (v == nullptr || !v->has_rank) return std::nullopt;
  return v->dims.size();
}

std::optional<SymInt> SymbolicShapes::DimOf(const std::string& name, int64_t i) const {
  const SymValue* v = Find(name);
  if (v == nullptr || !v->has_rank) return std::nullopt;
  auto a = NormAxis(i, v->dims.size());
  if (!a) return std::nullopt;
  return v->dims[static_cast<size_t>(*a)];
}

std::string SymbolicShapes::ToString(const std::string& name) const {
  const SymValue* v = Find(name);
  if (v == nullptr || !v->has_rank) return "?";
  std::string s = "[";
  for (size_t i = 0; i < v->dims.size(); ++i) {
    if (i) s += ",";
    const SymInt d = v->dims[i];
    if (d.known()) {
      s += std::to_string(d.v);
    } else {
      auto it = symbol_names_.find(d.v);
      s += it != symbol_names_.end() ? it->second : "s" + std::to_string(d.v);
    }
  }
  return s + "]";
}

void SymbolicShapes::Set(const std::string& name, SymValue v) {
  if (!name.empty()) values_[name] = std::move(v);
}

const SymValue* SymbolicShapes::In(const Node& node, size_t i) const {
  if (i >= node.inputs.size() || node.inputs[i].empty()) return nullptr;
  const SymValue* v = Find(node.inputs[i]);
  return v != nullptr && v->has_rank ? v : nullptr;
}

std::optional<std::vector<int64_t>> SymbolicShapes::KnownInts(const Node& node, size_t i) const {
  const SymValue* v = In(node, i);
  if (v == nullptr || !v->AllElemsKnown()) return std::nullopt;
  std::vector<int64_t> out;
  for (const SymInt& e : v->elems) out.push_back(e.v);
  return out;
}

void SymbolicShapes::VisitFused(const Node& node) {
  const std::string& op = node.op_type;
  const SymValue* x = In(node, 0);
  if (x == nullptr) return;
  SymValue r;
  r.has_rank = true;
  if (op == "Activation" || op == "RotaryEmbedding") {
    r.dims = x->dims;
  } else if (op == "Dense") {
    const SymValue* w = In(node, 1);
    if (w == nullptr || w->dims.size() != 2 || x->dims.empty()) return;
    r.dims = x->dims;
    r.dims.back() = w->dims[1];
  } else if (op == "Attention") {
    const SymValue* v = In(node, 2);
    const int64_t n = node.GetInt("num_heads", 0), kv = node.GetInt("kv_num_heads", 0);
    if (v == nullptr || n < 1 || kv < 1) return;
    const bool q3 = x->dims.size() == 3;
    if ((!q3 && x->dims.size() != 4) || (v->dims.size() != 3 && v->dims.size() != 4)) return;
    const SymInt b = x->dims[0], s = x->dims[q3 ? 1 : 2];
    SymInt dv = v->dims.back();
    if (v->dims.size() == 3) dv = dv.known() ? SymInt::Known(dv.v / kv) : Fresh();
    if (node.GetInt(kBshOutputAttr, 0) != 0)
      r.dims = {b, s, dv.known() ? SymInt::Known(n * dv.v) : Fresh()};
    else
      r.dims = {b, SymInt::Known(n), s, dv};
  } else {
    return;
  }
  Set(node.outputs[0], r);
}

// The com.microsoft operators the fusions write (passes/transformer_fusion.h): outputs of the
// input's shape (SkipLayerNormalization's input_skip_bias_sum too; its mean and inv_std_var,
// never written by the fusions, stay unknown).
void SymbolicShapes::VisitContrib(const Node& node) {
  const std::string& op = node.op_type;
  const SymValue* x = In(node, 0);
  if (x == nullptr || x->dims.empty()) return;
  SymValue r;
  r.has_rank = true;
  r.dims = x->dims;
  if (op == "QuickGelu") {
    Set(node.outputs[0], r);
  } else if (op == "SkipLayerNormalization" || op == "SkipSimplifiedLayerNormalization") {
    Set(node.outputs[0], r);
    if (node.outputs.size() > 3 && !node.outputs[3].empty()) Set(node.outputs[3], r);
  }
}

// Resize / Upsample over every axis (no `axes` attribute), the "stretch" aspect policy and no
// tf_crop_and_resize, whose sizes or scales are constants: the dims the kernel makes
// (ops/nn/resize.cc: the sizes, or floor(in * scale); a scale of 1 keeps the dim, symbol or
// not; another scale of a symbol is a fresh symbol). One fused with an Add (kResizeAddAttr,
// graph/fused_attributes.h) stays unknown.
void SymbolicShapes::VisitResize(const Node& node) {
  const SymValue* x = In(node, 0);
  if (x == nullptr || !x->has_rank || node.FindAttr("axes") != nullptr ||
      node.FindAttr(kResizeAddAttr) != nullptr ||
      node.GetString("keep_aspect_ratio_policy", "stretch") != "stretch" ||
      node.GetString("coordinate_transformation_mode", "") == "tf_crop_and_resize")
    return;
  const size_t rank = x->dims.size();
  const bool v11 = node.op_type == "Resize" && node.opset >= 11;
  SymValue r;
  r.has_rank = true;
  if (v11 && node.inputs.size() > 3 && !node.inputs[3].empty()) {
    const auto sizes = KnownInts(node, 3);
    if (!sizes || sizes->size() != rank) return;
    for (int64_t s : *sizes) r.dims.push_back(SymInt::Known(s));
    return Set(node.outputs[0], r);
  }
  std::vector<double> scales;
  if (node.op_type == "Upsample" && node.opset < 9) {
    for (float f : node.GetFloats("scales")) scales.push_back(f);
  } else {
    const size_t i = v11 ? 2 : 1;
    const Tensor* t = i < node.inputs.size() && !node.inputs[i].empty()
                          ? graph_.FindInitializer(node.inputs[i]) : nullptr;
    if (t == nullptr) return;
    for (int64_t k = 0; k < t->numel(); ++k) scales.push_back(t->GetDouble(k));
  }
  if (scales.size() != rank) return;
  for (size_t d = 0; d < rank; ++d) {
    const double sc = scales[d];
    const SymInt in = x->dims[d];
    if (!(sc > 0) || !std::isfinite(sc)) return;
    if (sc == 1.0)
      r.dims.push_back(in);
    else if (in.known())
      r.dims.push_back(SymInt::Known(static_cast<int64_t>(std::floor(static_cast<double>(in.v) * sc))));
    else
      r.dims.push_back(Fresh());
  }
  Set(node.outputs[0], r);
}

void SymbolicShapes::Visit(const Node& node) {
  if (node.domain == kVtDomain && !node.outputs.empty()) return VisitFused(node);
  if (node.domain == "com.microsoft" && !node.outputs.empty()) return VisitContrib(node);
  if (!node.domain.empty() || node.outputs.empty()) return;
  const std::string& op = node.op_type;
  const std::string& out = node.outputs[0];
  SymValue r;
  r.has_rank = true;
  const SymValue* x = In(node, 0);
  if (op == "Resize" || op == "Upsample") return VisitResize(node);

  if (SameShapeOps().count(op)) {
    if (x == nullptr) return;
    r.dims = x->dims;
    if (x->has_elems && (op == "Identity" || op == "Cast" || op == "Neg")) {
      const bool to_int = op != "Cast" || node.GetInt("to", 0) == 7 || node.GetInt("to", 0) == 6;
      if (to_int) {
        r.has_elems = true;
        r.elem_dtype = op != "Cast" ? x->elem_dtype
                       : node.GetInt("to", 0) == 7 ? DType::kInt64 : DType::kInt32;
        for (SymInt e : x->elems) {
          if (op == "Cast" && r.elem_dtype == DType::kInt32 && e.known())
            e = SymInt::Known(static_cast<int32_t>(e.v));  // the cast's own wrap-around
          r.elems.push_back(op != "Neg" ? e : e.known() ? SymInt::Known(-e.v) : Combine("Neg", e, e));
        }
      }
    }
    Set(out, r);
    return;
  }
  if (BroadcastOps().count(op)) {
    size_t rank = 0;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const SymValue* v = In(node, i);
      if (v == nullptr) return;
      rank = std::max(rank, v->dims.size());
    }
    r.dims.assign(rank, SymInt::Known(1));
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const SymValue* v = In(node, i);
      const size_t off = rank - v->dims.size();
      for (size_t d = 0; d < v->dims.size(); ++d) r.dims[off + d] = Broadcast(r.dims[off + d], v->dims[d]);
    }
    // Scalar integer arithmetic on shape elements.
    const SymValue* y = In(node, 1);
    if (node.inputs.size() == 2 && x->has_elems && y->has_elems &&
        (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") &&
        (x->elems.size() == y->elems.size() || x->elems.size() == 1 || y->elems.size() == 1)) {
      const size_t n = std::max(x->elems.size(), y->elems.size());
      r.has_elems = true;
      for (size_t i = 0; i < n; ++i) {
        const SymInt a = x->elems[x->elems.size() == 1 ? 0 : i];
        const SymInt b = y->elems[y->elems.size() == 1 ? 0 : i];
        if (a.known() && b.known()) {
          int64_t v = 0;
          if (op == "Add") v = a.v + b.v;
          else if (op == "Sub") v = a.v - b.v;
          else if (op == "Mul") v = a.v * b.v;
          else if (b.v != 0) v = a.v / b.v;  // integer Div truncates, like the kernel
          else break;                          // division by zero: no elements known
          r.elems.push_back(SymInt::Known(v));
        } else if (op == "Add" && b.Is(0)) {
          r.elems.push_back(a);
        } else if ((op == "Mul" || op == "Div") && b.Is(1)) {
          r.elems.push_back(a);
        } else {
          r.elems.push_back(Combine(op, a, b));
        }
      }
      if (r.elems.size() != n) r.has_elems = false, r.elems.clear();
      r.elem_dtype = x->elem_dtype;
    }
    Set(out, r);
    return;
  }
  if (op == "Shape") {
    if (x == nullptr) return;
    int64_t rank = static_cast<int64_t>(x->dims.size());
    int64_t start = node.opset >= 15 ? node.GetInt("start", 0) : 0;
    int64_t end = node.opset >= 15 ? node.GetInt("end", rank) : rank;
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    r.dims = {SymInt::Known(end - start)};
    r.has_elems = true;
    r.elem_dtype = DType::kInt64;
    r.elems.assign(x->dims.begin() + start, x->dims.begin() + end);
    Set(out, r);
    return;
  }
  if (op == "Gather") {
    const SymValue* idx = In(node, 1);
    if (x == nullptr || idx == nullptr) return;
    auto axis = NormAxis(node.GetInt("axis", 0), x->dims.size());
    if (!axis) return;
    for (size_t d = 0; d < *axis; ++d) r.dims.push_back(x->dims[d]);
    for (SymInt d : idx->dims) r.dims.push_back(d);
    for (size_t d = *axis + 1; d < x->dims.size(); ++d) r.dims.push_back(x->dims[d]);
    if (x->has_elems && x->dims.size() == 1 && idx->AllElemsKnown()) {
      const int64_t n = static_cast<int64_t>(x->elems.size());
      r.has_elems = true;
      r.elem_dtype = x->elem_dtype;
      for (SymInt i : idx->elems) {
        const int64_t k = i.v < 0 ? i.v + n : i.v;
        if (k < 0 || k >= n) {
          r.has_elems = false;
          r.elems.clear();
          break;
        }
        r.elems.push_back(x->elems[static_cast<size_t>(k)]);
      }
    }
    Set(out, r);
    return;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    if (x == nullptr) return;
    std::optional<std::vector<int64_t>> axes;
    if (node.opset >= 13) {
      if (node.inputs.size() > 1 && !node.inputs[1].empty()) axes = KnownInts(node, 1);
      else if (op == "Unsqueeze") return;
      else axes = std::vector<int64_t>{};
    } else {
      axes = node.GetInts("axes");
    }
    if (!axes) return;
    if (op == "Unsqueeze") {
      const size_t rank = x->dims.size() + axes->size();
      std::vector<bool> is_new(rank, false);
      for (int64_t a : *axes) {
        auto n = NormAxis(a, rank);
        if (!n || is_new[*n]) return;
        is_new[*n] = true;
      }
      size_t k = 0;
      for (size_t d = 0; d < rank; ++d) r.dims.push_back(is_new[d] ? SymInt::Known(1) : x->dims[k++]);
    } else {
      std::vector<bool> drop(x->dims.size(), false);
      if (axes->empty()) {
        for (size_t d = 0; d < x->dims.size(); ++d) {
          if (x->dims[d].sym) return;  // which dims are 1 is not known
          drop[d] = x->dims[d].v == 1;
        }
      }
      for (int64_t a : *axes) {
        auto n = NormAxis(a, x->dims.size());
        if (!n) return;
        drop[*n] = true;
      }
      for (size_t d = 0; d < x->dims.size(); ++d)
        if (!drop[d]) r.dims.push_back(x->dims[d]);
    }
    if (x->has_elems && r.dims.size() <= 1) {
      r.has_elems = true;
      r.elem_dtype = x->elem_dtype;
      r.elems = x->elems;
    }
    Set(out, r);
    return;
  }
  if (op == "Concat") {
    std::vector<const SymValue*> ins;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const SymValue* v = In(node, i);
      if (v == nullptr) return;
      ins.push_back(v);
    }
    if (ins.empty()) return;
    auto axis = NormAxis(node.GetInt("axis", 0), ins[0]->dims.size());
    if (!axis) return;
    r.dims = ins[0]->dims;
    bool elems = true;
    for (size_t i = 0; i < ins.size(); ++i) {
      if (ins[i]->dims.size() != r.dims.size()) return;
      elems = elems && ins[i]->has_elems;
      if (i == 0) continue;
      for (size_t d = 0; d < r.dims.size(); ++d) {
        if (d == *axis) {
          const SymInt a = r.dims[d], b = ins[i]->dims[d];
          r.dims[d] = a.known() && b.known() ? SymInt::Known(a.v + b.v)
                      : b.Is(0)               ? a
                      : a.Is(0)               ? b
                                              : Combine("Add", a, b);
        } else if (r.dims[d] != ins[i]->dims[d]) {
          r.dims[d] = Broadcast(r.dims[d], ins[i]->dims[d]);  // equal in any valid run
        }
      }
    }
    if (elems && r.dims.size() == 1) {
      r.has_elems = true;
      r.elem_dtype = ins[0]->elem_dtype;
      for (const SymValue* v : ins) r.elems.insert(r.elems.end(), v->elems.begin(), v->elems.end());
    }
    Set(out, r);
    return;
  }
  if (op == "Reshape") {
    const SymValue* s = In(node, 1);
    if (x == nullptr || s == nullptr || !s->has_elems || node.opset < 5) return;
    const bool allowzero = node.opset >= 14 && node.GetInt("allowzero", 0) != 0;
    int infer = -1;
    for (size_t i = 0; i < s->elems.size(); ++i) {
      SymInt e = s->elems[i];
      if (e.Is(0) && !allowzero) {
        if (i >= x->dims.size()) return;
        e = x->dims[i];
      } else if (e.Is(-1)) {
        if (infer >= 0) return;
        infer = static_cast<int>(i);
      }
      r.dims.push_back(e);
    }
    if (infer >= 0) {
      // -1: total / product of the others, when all are known; a fresh symbol otherwise.
      int64_t total = 1, known = 1;
      bool all = true;
      for (SymInt d : x->dims) all = all && d.known(), total *= d.known() ? d.v : 1;
      for (size_t i = 0; i < r.dims.size(); ++i)
        if (static_cast<int>(i) != infer) all = all && r.dims[i].known(), known *= r.dims[i].known() ? r.dims[i].v : 1;
      r.dims[static_cast<size_t>(infer)] =
          all && known != 0 ? SymInt::Known(total / known) : Fresh();
    }
    if (x->has_elems && r.dims.size() <= 1) {
      r.has_elems = true;
      r.elem_dtype = x->elem_dtype;
      r.elems = x->elems;
    }
    Set(out, r);
    return;
  }
  if (op == "Transpose") {
    if (x == nullptr) return;
    std::vector<int64_t> perm = node.GetInts("perm");
    if (perm.empty())
      for (size_t d = x->dims.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
    if (perm.size() != x->dims.size()) return;
    for (int64_t p : perm) {
      auto a = NormAxis(p, x->dims.size());
      if (!a) return;
      r.dims.push_back(x->dims[*a]);
    }
    Set(out, r);
    return;
  }
  if (op == "Expand") {
    const SymValue* s = In(node, 1);
    if (x == nullptr || s == nullptr || !s->has_elems) return;
    const size_t rank = std::max(x->dims.size(), s->elems.size());
    r.dims.assign(rank, SymInt::Known(1));
    for (size_t d = 0; d < s->elems.size(); ++d) r.dims[rank - s->elems.size() + d] = s->elems[d];
    for (size_t d = 0; d < x->dims.size(); ++d) {
      SymInt& o = r.dims[rank - x->dims.size() + d];
      o = Broadcast(o, x->dims[d]);
    }
    Set(out, r);
    return;
  }
  if (op == "ConstantOfShape") {
    const SymValue* s = In(node, 0);
    if (s == nullptr || !s->has_elems) return;
    r.dims = s->elems;
    Set(out, r);
    return;
  }
  if (op == "MatMul") {
    const SymValue* b = In(node, 1);
    if (x == nullptr || b == nullptr || x->dims.empty() || b->dims.empty()) return;
    std::vector<SymInt> a = x->dims, bb = b->dims;
    const bool a1 = a.size() == 1, b1 = bb.size() == 1;
    if (a1) a.insert(a.begin(), SymInt::Known(1));
    if (b1) bb.push_back(SymInt::Known(1));
    const size_t batch = std::max(a.size(), bb.size()) - 2;
    for (size_t d = 0; d < batch; ++d) {
      const size_t ia = d + a.size() - 2 - batch, ib = d + bb.size() - 2 - batch;
      const SymInt da = d + a.size() >= batch + 2 ? a[ia] : SymInt::Known(1);
      const SymInt db = d + bb.size() >= batch + 2 ? bb[ib] : SymInt::Known(1);
      r.dims.push_back(Broadcast(da, db));
    }
    if (!a1) r.dims.push_back(a[a.size() - 2]);
    if (!b1) r.dims.push_back(bb.back());
    Set(out, r);
    return;
  }
  if (op == "Gemm") {
    const SymValue* b = In(node, 1);
    if (x == nullptr || b == nullptr || x->dims.size() != 2 || b->dims.size() != 2) return;
    r.dims = {x->dims[node.GetInt("transA", 0) ? 1 : 0], b->dims[node.GetInt("transB", 0) ? 0 : 1]};
    Set(out, r);
    return;
  }
  if (op == "Slice") {
    if (x == nullptr) return;
    using Ints = std::optional<std::vector<int64_t>>;
    Ints starts, ends, axes, steps = std::vector<int64_t>{};
    if (node.opset < 10) {
      starts = node.GetInts("starts"), ends = node.GetInts("ends"), axes = node.GetInts("axes");
    } else {
      auto optional_input = [&](size_t i) {
        return node.inputs.size() > i && !node.inputs[i].empty() ? KnownInts(node, i)
                                                                 : Ints(std::vector<int64_t>{});
      };
      starts = KnownInts(node, 1), ends = KnownInts(node, 2);
      axes = optional_input(3), steps = optional_input(4);
    }
    r.dims = x->dims;
    const bool known_params = starts && ends && axes && steps;
    if (!known_params || starts->size() != ends->size()) {
      // Which axes change is unknown unless axes are given: those become fresh.
      if (!axes || axes->empty()) return;
      for (int64_t a : *axes) {
        auto n = NormAxis(a, x->dims.size());
        if (!n) return;
        r.dims[*n] = Fresh();
      }
      Set(out, r);
      return;
    }
    for (size_t i = 0; i < starts->size(); ++i) {
      const int64_t a0 = axes->empty() ? static_cast<int64_t>(i) : (*axes)[i];
      auto a = NormAxis(a0, x->dims.size());
      if (!a) return;
      const int64_t step = !steps->empty() ? (*steps)[i] : 1;
      const SymInt dim = x->dims[*a];
      int64_t s = (*starts)[i], e = (*ends)[i];
      if (dim.known() && step != 0) {
        const int64_t n = dim.v;
        if (s < 0) s += n;
        if (e < 0) e += n;
        if (step > 0) {
          s = std::clamp<int64_t>(s, 0, n), e = std::clamp<int64_t>(e, 0, n);
          r.dims[*a] = SymInt::Known(e > s ? (e - s + step - 1) / step : 0);
        } else {
          s = std::clamp<int64_t>(s, 0, n - 1), e = std::clamp<int64_t>(e, -1, n - 1);
          r.dims[*a] = SymInt::Known(s > e ? (s - e - step - 1) / -step : 0);
        }
      } else if (step == 1 && s == 0 && e >= std::numeric_limits<int32_t>::max()) {
        r.dims[*a] = dim;  // the whole axis
      } else {
        r.dims[*a] = Fresh();
      }
    }
    if (x->has_elems && x->dims.size() == 1 && r.dims[0].known() && starts->size() == 1 &&
        (steps->empty() || (*steps)[0] == 1) && x->dims[0].known()) {
      int64_t s = (*starts)[0];
      const int64_t n = x->dims[0].v;
      if (s < 0) s += n;
      s = std::clamp<int64_t>(s, 0, n);
      r.has_elems = true;
      r.elem_dtype = x->elem_dtype;
      for (int64_t k = 0; k < r.dims[0].v; ++k) r.elems.push_back(x->elems[static_cast<size_t>(s + k)]);
    }
    Set(out, r);
    return;
  }
  if (op.rfind("Reduce", 0) == 0) {
    if (x == nullptr) return;
    std::optional<std::vector<int64_t>> axes;
    const bool axes_input = node.opset >= 18 || (op == "ReduceSum" && node.opset >= 13);
    if (axes_input) {
      axes = node.inputs.size() > 1 && !node.inputs[1].empty()
                 ? KnownInts(node, 1)
                 : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
    } else {
      axes = node.GetInts("axes");
    }
    if (!axes) return;
    if (axes->empty() && axes_input && node.GetInt("noop_with_empty_axes", 0)) {
      r.dims = x->dims;
      Set(out, r);
      return;
    }
    std::vector<bool> red(x->dims.size(), axes->empty());
    for (int64_t a : *axes) {
      auto n = NormAxis(a, x->dims.size());
      if (!n) return;
      red[*n] = true;
    }
    const bool keep = node.GetInt("keepdims", 1) != 0;
    for (size_t d = 0; d < x->dims.size(); ++d) {
      if (!red[d]) r.dims.push_back(x->dims[d]);
      else if (keep) r.dims.push_back(SymInt::Known(1));
    }
    Set(out, r);
    return;
  }
}

}  // namespace vt
