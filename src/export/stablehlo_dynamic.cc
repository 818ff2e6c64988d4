// Dynamic dims of the StableHLO emitter (docs/export.md, "Dynamic dims"): coded shapes, the
// per-region sources of run-time extents, shape operands for the dynamic_* ops, and which
// converters accept dynamic dims.
#include <cstring>

#include "export/dynamic_dims.h"
#include "export/mlir_text.h"
#include "export/stablehlo_emitter.h"
#include "vtensor/passes/static_shapes.h"

namespace vt::hlo {

namespace {

std::string I64List(const std::vector<int64_t>& v) {
  std::string s = "dense<[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]>";
}

}  // namespace

bool HasDynamicDims(const Shape& s) {
  for (int64_t d : s)
    if (IsDynamicDim(d)) return true;
  return false;
}

Shape CodedShape(const TensorSpec& spec) {
  if (!spec.shape()) return StaticShape(spec);
  const size_t prefix = std::strlen(kDynamicDimParam);
  Shape out;
  for (const Dim& d : *spec.shape()) {
    if (!d.known() && d.param.compare(0, prefix, kDynamicDimParam) == 0)
      out.push_back(DynDimCode(static_cast<size_t>(std::stoul(d.param.substr(prefix)))));
    else
      out.push_back(d.value);
  }
  return out;
}

void Emitter::SetDynamicDims(std::vector<std::string> names, std::set<std::string> run_time_values) {
  dim_names_ = std::move(names);
  run_time_values_ = std::move(run_time_values);
}

std::string Emitter::DimName(int64_t code) const {
  const size_t k = DynDimIndex(code);
  return k < dim_names_.size() ? dim_names_[k] : "dynamic dim " + std::to_string(k);
}

void Emitter::NoteDims(const Val& v) {
  for (size_t a = 0; a < v.shape.size(); ++a)
    if (IsDynamicDim(v.shape[a])) dim_sources_.back().emplace(v.shape[a], std::make_pair(v, static_cast<int64_t>(a)));
}

void Emitter::Fail(const std::string& msg) {
  if (status_.ok()) status_ = Unimplemented(msg);
}

Status Emitter::TakeStatus() {
  Status s = std::move(status_);
  status_ = Status::Ok();
  return s;
}

Val Emitter::DimSize(int64_t code) {
  if (auto known = dim_sizes_.back().find(code); known != dim_sizes_.back().end()) return known->second;
  auto it = dim_sources_.back().find(code);
  if (it == dim_sources_.back().end()) {
    Fail("the dynamic dim " + DimName(code) + " has no value to read its extent from");
    return Constant("dense<0>", DType::kInt64, {1});
  }
  const auto& [src, axis] = it->second;
  Val n = Op("stablehlo.get_dimension_size", {src}, "dimension = " + std::to_string(axis) + " : i64",
             DType::kInt32, {});
  Val size = Op("stablehlo.reshape", {Convert(n, DType::kInt64)}, "", DType::kInt64, {1});
  dim_sizes_.back()[code] = size;
  return size;
}

Val Emitter::NumElementsOf(const Val& v) {
  int64_t fixed = 1;
  for (int64_t d : v.shape)
    if (!IsDynamicDim(d)) fixed *= d;
  Val n = Constant(I64List({fixed}), DType::kInt64, {1});
  for (int64_t d : v.shape)
    if (IsDynamicDim(d)) n = Binary("stablehlo.multiply", n, DimSize(d));
  return n;
}

Val Emitter::ShapeTensor(const Shape& shape, const Val* whole) {
  // A dim no value holds yet (a reshape's new product of dims): what the other dims leave.
  int64_t derived = 0;
  for (int64_t d : shape)
    if (IsDynamicDim(d) && !dim_sources_.back().count(d)) {
      if (whole == nullptr || derived != 0) {
        Fail("the dynamic dim " + DimName(d) + " has no value to read its extent from");
        return Constant(I64List(Shape(shape.size(), 0)), DType::kInt64, {static_cast<int64_t>(shape.size())});
      }
      derived = d;
    }
  std::vector<Val> parts;
  std::vector<int64_t> run;
  auto flush = [&] {
    if (!run.empty()) parts.push_back(Constant(I64List(run), DType::kInt64, {static_cast<int64_t>(run.size())}));
    run.clear();
  };
  for (int64_t d : shape) {
    if (!IsDynamicDim(d)) {
      run.push_back(d);
      continue;
    }
    flush();
    if (d != derived) {
      parts.push_back(DimSize(d));
      continue;
    }
    Val others = Constant(I64List({1}), DType::kInt64, {1});
    for (int64_t o : shape)
      if (o != derived)
        others = Binary("stablehlo.multiply", others,
                        IsDynamicDim(o) ? DimSize(o) : Constant(I64List({o}), DType::kInt64, {1}));
    parts.push_back(Binary("stablehlo.divide", NumElementsOf(*whole), others));
  }
  flush();
  if (parts.empty()) return Constant("dense<>", DType::kInt64, {0});
  return Concat(parts, 0);
}

bool AcceptsDynamicDims(const std::string& op_type) {
  static const std::set<std::string> kOps = [] {
    // Every element-wise converter: their shapes go through Splat / BroadcastTo.
    std::map<std::string, Converter> m;
    AddElementwiseConverters(m);
    std::set<std::string> ops;
    for (const auto& [op, c] : m) ops.insert(op);
    for (const char* op : {"MatMul", "Gemm", "Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool",
                           "GlobalMaxPool", "BatchNormalization", "LayerNormalization",
                           "InstanceNormalization", "Softmax", "LogSoftmax", "ReduceSum", "ReduceMean",
                           "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1",
                           "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "Reshape", "Flatten",
                           "Squeeze", "Unsqueeze", "Transpose", "Concat", "Slice", "Split", "Pad", "Gather",
                           "Expand", "Tile", "LSTM", "Resize", "Upsample"})
      ops.insert(op);
    return ops;
  }();
  return kOps.count(op_type) != 0;
}

}  // namespace vt::hlo
