#include "export/stablehlo_emitter.h"

#include <fmt/core.h>

#include <cmath>
#include <limits>

#include "export/mlir_text.h"
#include "vtensor/passes/static_shapes.h"

namespace vt::hlo {

namespace {

std::string TypeOf(DType dt, const Shape& s) { return mlir::TensorType(dt, s); }

std::string Operands(const std::vector<Val>& vs) {
  std::string s;
  for (size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + vs[i].ref;
  return s;
}

std::string OperandTypes(const std::vector<Val>& vs) {
  std::string s;
  for (size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + vs[i].type;
  return s;
}

std::string DimList(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

bool IsFloat(DType dt) { return IsFloatDType(dt) || IsFloat8DType(dt); }

// Scalar literal of `v` in `dt`, saturating infinities for integers.
std::string ScalarLiteral(double v, DType dt) {
  if (IsFloat(dt)) return mlir::FloatLiteral(v, dt);
  if (dt == DType::kBool) return v != 0 ? "true" : "false";
  const bool is_unsigned = dt == DType::kUInt8 || dt == DType::kUInt16 || dt == DType::kUInt32 ||
                           dt == DType::kUInt64 || dt == DType::kUInt4;
  const int bits = dt == DType::kInt4 || dt == DType::kUInt4 ? 4 : static_cast<int>(DTypeSize(dt)) * 8;
  if (std::isinf(v) || std::abs(v) >= 9.2e18) {
    if (is_unsigned) {
      if (v < 0) return "0";
      return bits == 64 ? "18446744073709551615" : std::to_string((uint64_t{1} << bits) - 1);
    }
    if (v < 0) return bits == 64 ? "-9223372036854775808" : std::to_string(-(int64_t{1} << (bits - 1)));
    return bits == 64 ? "9223372036854775807" : std::to_string((int64_t{1} << (bits - 1)) - 1);
  }
  return std::to_string(static_cast<int64_t>(v));
}

// Ops whose result type must be static: with a dynamic result the converter has to use their
// dynamic_* form (Emitter helpers do), so meeting one is a converter gap, never valid output.
bool TakesStaticResult(const std::string& op) {
  return op == "stablehlo.broadcast_in_dim" || op == "stablehlo.reshape" || op == "stablehlo.iota" ||
         op == "stablehlo.constant" || op == "stablehlo.slice" || op == "stablehlo.dynamic_slice";
}

}  // namespace

std::string Emitter::Fresh() { return "%" + std::to_string(next_++); }

void Emitter::Line(const std::string& s) {
  const int depth = static_cast<int>(bufs_.size()) - 1;
  bufs_.back() += std::string(static_cast<size_t>(indent_ + 2 * depth), ' ') + s + "\n";
}

void Emitter::BeginRegion() {
  bufs_.emplace_back();
  dim_sources_.push_back(dim_sources_.back());  // values of enclosing regions stay visible
  dim_sizes_.push_back(dim_sizes_.back());
}

std::string Emitter::EndRegion() {
  std::string r = std::move(bufs_.back());
  bufs_.pop_back();
  dim_sources_.pop_back();
  dim_sizes_.pop_back();
  return r;
}

Val Emitter::Op(const std::string& op, const std::vector<Val>& operands, const std::string& attrs,
                DType dt, const Shape& shape) {
  if (HasDynamicDims(shape) && TakesStaticResult(op))
    Fail(op + " needs a static result type, here " + TypeOf(dt, shape));
  Val r{Fresh(), dt, shape, TypeOf(dt, shape)};
  std::string line = r.ref + " = \"" + op + "\"(" + Operands(operands) + ")";
  if (!attrs.empty()) line += " {" + attrs + "}";
  line += " : (" + OperandTypes(operands) + ") -> " + r.type;
  Line(line);
  NoteDims(r);
  return r;
}

std::vector<Val> Emitter::OpWithRegions(const std::string& op, const std::vector<Val>& operands,
                                        const std::vector<std::string>& regions,
                                        const std::string& attrs,
                                        const std::vector<std::pair<DType, Shape>>& results) {
  const std::string base = Fresh();
  std::vector<Val> out;
  std::string types;
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string ref = results.size() == 1 ? base : base + "#" + std::to_string(i);
    out.push_back({ref, results[i].first, results[i].second, TypeOf(results[i].first, results[i].second)});
    types += (i ? ", " : "") + out.back().type;
  }
  const int depth = static_cast<int>(bufs_.size()) - 1;
  const std::string pad(static_cast<size_t>(indent_ + 2 * depth), ' ');
  std::string s = pad + base + (results.size() > 1 ? ":" + std::to_string(results.size()) : "") +
                  " = \"" + op + "\"(" + Operands(operands) + ") (";
  for (size_t i = 0; i < regions.size(); ++i) s += std::string(i ? ", " : "") + "{\n" + regions[i] + pad + "}";
  s += ")";
  if (!attrs.empty()) s += " {" + attrs + "}";
  s += " : (" + OperandTypes(operands) + ") -> " + (results.size() == 1 ? types : "(" + types + ")");
  bufs_.back() += s + "\n";
  for (const Val& v : out) NoteDims(v);
  return out;
}

Val Emitter::Constant(const std::string& dense_literal, DType dt, const Shape& shape) {
  const std::string type = TypeOf(dt, shape);
  return Op("stablehlo.constant", {}, "value = " + dense_literal + " : " + type, dt, shape);
}

Expected<Val> Emitter::ConstantTensor(const Tensor& t) {
  VT_ASSIGN_OR_RETURN(std::string lit, mlir::DenseLiteral(t));
  return Constant(lit, t.dtype(), t.shape());
}

Val Emitter::Scalar(double v, DType dt) { return Splat(v, dt, {}); }

Val Emitter::Splat(double v, DType dt, const Shape& shape) {
  if (HasDynamicDims(shape)) return BroadcastInDim(Scalar(v, dt), shape, {});
  return Constant("dense<" + ScalarLiteral(v, dt) + ">", dt, shape);
}

Val Emitter::Reshape(const Val& v, const Shape& shape) {
  if (v.shape == shape) return v;
  if (HasDynamicDims(shape) || HasDynamicDims(v.shape))
    return Op("stablehlo.dynamic_reshape", {v, ShapeTensor(shape, &v)}, "", v.dtype, shape);
  return Op("stablehlo.reshape", {v}, "", v.dtype, shape);
}

Val Emitter::Transpose(const Val& v, const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return v;
  Shape s;
  for (int64_t p : perm) s.push_back(v.shape[static_cast<size_t>(p)]);
  return Op("stablehlo.transpose", {v}, "permutation = " + mlir::ArrayI64(perm), v.dtype, s);
}

Val Emitter::Convert(const Val& v, DType dt) {
  if (v.dtype == dt) return v;
  return Op("stablehlo.convert", {v}, "", dt, v.shape);
}

Val Emitter::BroadcastInDim(const Val& v, const Shape& shape, const std::vector<int64_t>& dims) {
  if (HasDynamicDims(shape))
    return Op("stablehlo.dynamic_broadcast_in_dim", {v, ShapeTensor(shape)},
              "broadcast_dimensions = " + mlir::ArrayI64(dims), v.dtype, shape);
  return Op("stablehlo.broadcast_in_dim", {v}, "broadcast_dimensions = " + mlir::ArrayI64(dims),
            v.dtype, shape);
}

Val Emitter::BroadcastTo(const Val& v, const Shape& shape) {
  if (v.shape == shape) return v;
  const size_t off = shape.size() - v.shape.size();
  // broadcast_in_dim accepts operand dims of size 1 against any result extent.
  std::vector<int64_t> dims;
  for (size_t i = 0; i < v.shape.size(); ++i) dims.push_back(static_cast<int64_t>(off + i));
  return BroadcastInDim(v, shape, dims);
}

Val Emitter::Slice(const Val& v, const std::vector<int64_t>& start, const std::vector<int64_t>& limit,
                   const std::vector<int64_t>& strides) {
  if (HasDynamicDims(v.shape)) return DynamicSlice(v, start, limit, strides);
  Shape s;
  for (size_t i = 0; i < start.size(); ++i)
    s.push_back(limit[i] <= start[i] ? 0 : (limit[i] - start[i] + strides[i] - 1) / strides[i]);
  if (s == v.shape) {
    bool whole = true;
    for (size_t i = 0; i < start.size(); ++i) whole = whole && start[i] == 0 && strides[i] == 1;
    if (whole) return v;
  }
  return Op("stablehlo.slice", {v},
            "start_indices = " + mlir::ArrayI64(start) + ", limit_indices = " + mlir::ArrayI64(limit) +
                ", strides = " + mlir::ArrayI64(strides),
            v.dtype, s);
}

// A dynamic dim can only be taken whole: start 0, limit the dim itself, stride 1; the others
// are sliced as usual. stablehlo.slice needs static limits, real_dynamic_slice takes them as
// an operand.
Val Emitter::DynamicSlice(const Val& v, const std::vector<int64_t>& start,
                          const std::vector<int64_t>& limit, const std::vector<int64_t>& strides) {
  Shape s;
  for (size_t i = 0; i < start.size(); ++i) {
    if (IsDynamicDim(v.shape[i])) {
      if (start[i] != 0 || limit[i] != v.shape[i] || strides[i] != 1) {
        Fail("slicing inside the dynamic dim " + DimName(v.shape[i]));
        return v;
      }
      s.push_back(v.shape[i]);
      continue;
    }
    s.push_back(limit[i] <= start[i] ? 0 : (limit[i] - start[i] + strides[i] - 1) / strides[i]);
  }
  const int64_t r = static_cast<int64_t>(start.size());
  auto list = [&](const std::vector<int64_t>& x) {
    std::string t = "dense<[";
    for (size_t i = 0; i < x.size(); ++i) t += (i ? ", " : "") + std::to_string(x[i]);
    return Constant(t + "]>", DType::kInt64, {r});
  };
  return Op("stablehlo.real_dynamic_slice", {v, list(start), ShapeTensor(limit), list(strides)}, "",
            v.dtype, s);
}

Val Emitter::Reverse(const Val& v, const std::vector<int64_t>& dims) {
  if (dims.empty()) return v;
  return Op("stablehlo.reverse", {v}, "dimensions = " + mlir::ArrayI64(dims), v.dtype, v.shape);
}

Val Emitter::Concat(const std::vector<Val>& vs, int64_t dim) {
  if (vs.size() == 1) return vs[0];
  for (const auto& v : vs)
    if (IsDynamicDim(v.shape[static_cast<size_t>(dim)])) {
      Fail("concatenating along the dynamic dim " + DimName(v.shape[static_cast<size_t>(dim)]));
      return vs[0];
    }
  Shape s = vs[0].shape;
  s[static_cast<size_t>(dim)] = 0;
  for (const auto& v : vs) s[static_cast<size_t>(dim)] += v.shape[static_cast<size_t>(dim)];
  return Op("stablehlo.concatenate", vs, "dimension = " + std::to_string(dim) + " : i64", vs[0].dtype, s);
}

Val Emitter::Binary(const std::string& op, const Val& a, const Val& b) {
  return Op(op, {a, b}, "", a.dtype, a.shape);
}

Val Emitter::Unary(const std::string& op, const Val& a) { return Op(op, {a}, "", a.dtype, a.shape); }

Val Emitter::Compare(const std::string& dir, const Val& a, const Val& b) {
  std::string type = "FLOAT";
  if (!IsFloat(a.dtype)) {
    type = (a.dtype == DType::kBool || a.dtype == DType::kUInt8 || a.dtype == DType::kUInt16 ||
            a.dtype == DType::kUInt32 || a.dtype == DType::kUInt64)
               ? "UNSIGNED"
               : "SIGNED";
  }
  return Op("stablehlo.compare", {a, b},
            "comparison_direction = #stablehlo<comparison_direction " + dir +
                ">, compare_type = #stablehlo<comparison_type " + type + ">",
            DType::kBool, a.shape);
}

Val Emitter::Select(const Val& pred, const Val& a, const Val& b) {
  return Op("stablehlo.select", {pred, a, b}, "", a.dtype, a.shape);
}

Val Emitter::Clamp(const Val& lo, const Val& x, const Val& hi) {
  return Op("stablehlo.clamp", {lo, x, hi}, "", x.dtype, x.shape);
}

std::string Emitter::BodyRegion(const std::string& body_op, DType dt) {
  const std::string t = TypeOf(dt, {});
  const int depth = static_cast<int>(bufs_.size()) - 1;
  const std::string pad(static_cast<size_t>(indent_ + 2 * depth), ' ');
  const std::string a = Fresh(), b = Fresh(), r = Fresh();
  return pad + "^bb0(" + a + ": " + t + ", " + b + ": " + t + "):\n" + pad + "  " + r + " = \"" +
         body_op + "\"(" + a + ", " + b + ") : (" + t + ", " + t + ") -> " + t + "\n" + pad +
         "  \"stablehlo.return\"(" + r + ") : (" + t + ") -> ()\n";
}

Val Emitter::Reduce(const Val& v, const std::vector<int64_t>& dims, const std::string& body_op,
                    double init) {
  if (dims.empty()) return v;
  Val init_v = Scalar(init, v.dtype);
  Shape s;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    bool reduced = false;
    for (int64_t d : dims) reduced = reduced || d == static_cast<int64_t>(i);
    if (!reduced) s.push_back(v.shape[i]);
  }
  const std::string body = BodyRegion(body_op, v.dtype);
  return OpWithRegions("stablehlo.reduce", {v, init_v}, {body}, "dimensions = " + mlir::ArrayI64(dims),
                       {{v.dtype, s}})[0];
}

Val Emitter::DotGeneral(const Val& lhs, const Val& rhs, const std::vector<int64_t>& lb,
                        const std::vector<int64_t>& rb, const std::vector<int64_t>& lc,
                        const std::vector<int64_t>& rc, const Shape& result) {
  std::string dn = "dot_dimension_numbers = #stablehlo.dot<";
  std::vector<std::string> parts;
  if (!lb.empty()) parts.push_back("lhs_batching_dimensions = " + DimList(lb));
  if (!rb.empty()) parts.push_back("rhs_batching_dimensions = " + DimList(rb));
  parts.push_back("lhs_contracting_dimensions = " + DimList(lc));
  parts.push_back("rhs_contracting_dimensions = " + DimList(rc));
  for (size_t i = 0; i < parts.size(); ++i) dn += (i ? ", " : "") + parts[i];
  dn += ">";
  return Op("stablehlo.dot_general", {lhs, rhs}, dn, lhs.dtype, result);
}

Val Emitter::ReduceWindow(const Val& v, const std::string& body_op, double init,
                          const std::vector<int64_t>& window, const std::vector<int64_t>& strides,
                          const std::vector<std::pair<int64_t, int64_t>>& padding,
                          const Shape& result) {
  Val init_v = Scalar(init, v.dtype);
  const std::string body = BodyRegion(body_op, v.dtype);
  std::string attrs = "window_dimensions = " + mlir::ArrayI64(window) +
                      ", window_strides = " + mlir::ArrayI64(strides) +
                      ", padding = " + mlir::DenseI64Matrix(padding);
  return OpWithRegions("stablehlo.reduce_window", {v, init_v}, {body}, attrs, {{v.dtype, result}})[0];
}

// ---- NodeContext ----

Expected<Val> NodeContext::In(size_t i) {
  if (!has_input(i)) return Error("input " + std::to_string(i) + " is required");
  return lookup_(node_.inputs[i]);
}

const Tensor* NodeContext::Const(size_t i) const {
  if (!has_input(i) || e_.IsRunTimeValue(node_.inputs[i])) return nullptr;
  const std::string& name = node_.inputs[i];
  for (const Graph* s = &graph_; s != nullptr; s = s->parent) {
    auto it = s->initializers.find(name);
    if (it != s->initializers.end()) return &it->second;
    for (const auto& in : s->inputs)
      if (in.name == name) return nullptr;
    for (const auto& n : s->nodes)
      for (const auto& o : n.outputs)
        if (o == name) return nullptr;
  }
  return nullptr;
}

Status NodeContext::RequireStatic(size_t i, const Val& v, const std::vector<int64_t>& dims,
                                  const std::string& why) const {
  for (int64_t d : dims)
    if (d >= 0 && d < static_cast<int64_t>(v.shape.size()) && IsDynamicDim(v.shape[static_cast<size_t>(d)]))
      return Unsupported("input " + std::to_string(i) + " ('" + node_.inputs[i] + "') dim " + std::to_string(d) +
                         " is the dynamic dim " + e_.DimName(v.shape[static_cast<size_t>(d)]) + ", but " +
                         why + " needs it static; bind it with --input-shape");
  return Status::Ok();
}

Expected<std::vector<int64_t>> NodeContext::ConstInts(size_t i) const {
  if (has_input(i) && e_.IsRunTimeValue(node_.inputs[i]))
    return Unsupported("input " + std::to_string(i) + " ('" + node_.inputs[i] +
                       "') is computed from dynamic dims, so it is not a constant; bind the dims "
                       "with --input-shape");
  const Tensor* t = Const(i);
  if (t == nullptr) return Error("input " + std::to_string(i) + " must be a constant");
  std::vector<int64_t> v;
  for (int64_t k = 0; k < t->numel(); ++k) v.push_back(t->GetInt64(k));
  return v;
}

namespace {
const TensorSpec* Spec(const Graph& g, const std::string& name) {
  for (const Graph* s = &g; s != nullptr; s = s->parent) {
    auto it = s->values.find(name);
    if (it != s->values.end()) return &it->second;
  }
  return nullptr;
}
}  // namespace

DType NodeContext::OutDType(size_t o) const {
  const TensorSpec* s = Spec(graph_, node_.outputs[o]);
  return s ? s->dtype() : DType::kUndefined;
}

Shape NodeContext::OutShape(size_t o) const {
  const TensorSpec* s = Spec(graph_, node_.outputs[o]);
  return s ? CodedShape(*s) : Shape{};
}

Shape NodeContext::InShape(size_t i) const {
  if (const Tensor* t = Const(i)) return t->shape();
  const TensorSpec* s = Spec(graph_, node_.inputs[i]);
  return s ? CodedShape(*s) : Shape{};
}

DType NodeContext::InDType(size_t i) const {
  if (const Tensor* t = Const(i)) return t->dtype();
  const TensorSpec* s = Spec(graph_, node_.inputs[i]);
  return s ? s->dtype() : DType::kUndefined;
}

Expected<int64_t> NormAxis(const NodeContext& cx, int64_t axis, int64_t rank) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max<int64_t>(rank, 1))
    return cx.Error("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return a;
}

Converter FindConverter(const std::string& op_type) {
  static const std::map<std::string, Converter>* table = [] {
    auto* m = new std::map<std::string, Converter>();
    AddElementwiseConverters(*m);
    AddShapeConverters(*m);
    AddNnConverters(*m);
    AddReduceConverters(*m);
    AddRnnConverters(*m);
    AddControlConverters(*m);
    return m;
  }();
  auto it = table->find(op_type);
  return it == table->end() ? nullptr : it->second;
}

std::vector<std::string> SupportedOps() {
  std::map<std::string, Converter> m;
  AddElementwiseConverters(m);
  AddShapeConverters(m);
  AddNnConverters(m);
  AddReduceConverters(m);
  AddRnnConverters(m);
  AddControlConverters(m);
  std::vector<std::string> out;
  out.reserve(m.size());
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

}  // namespace vt::hlo
