// Data-movement ONNX ops -> StableHLO: reshapes (whose static result shape comes from shape
// specialization), transpose, concatenate, slice (negative steps via reverse), gather, pad
// (constant, reflect and edge modes), expand, tile and split.
#include <algorithm>

#include "export/mlir_text.h"
#include "export/stablehlo_emitter.h"

namespace vt::hlo {

namespace {

// Reshape, Flatten, Squeeze, Unsqueeze: only the element order matters, which is unchanged.
Status ReshapeLike(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  const Shape out = cx.OutShape(0);
  if (!HasDynamicDims(out) && !HasDynamicDims(x.shape) && NumElements(out) != NumElements(x.shape))
    return cx.Error("cannot reshape " + ShapeToString(x.shape) + " to " + ShapeToString(out));
  cx.Set(0, cx.e().Reshape(x, out));
  return Status::Ok();
}

Status TransposeOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  std::vector<int64_t> perm = cx.node().GetInts("perm");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  if (perm.empty())
    for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != r) return cx.Error("perm does not match the rank");
  cx.Set(0, cx.e().Transpose(x, perm));
  return Status::Ok();
}

Status ConcatOp(NodeContext& cx) {
  const Shape out = cx.OutShape(0);
  VT_ASSIGN_OR_RETURN(int64_t axis, NormAxis(cx, cx.node().GetInt("axis", 0), static_cast<int64_t>(out.size())));
  std::vector<Val> vs;
  for (size_t i = 0; i < cx.num_inputs(); ++i) {
    if (!cx.has_input(i)) continue;
    VT_ASSIGN_OR_RETURN(Val v, cx.In(i));
    if (v.shape[static_cast<size_t>(axis)] == 0) continue;  // empty pieces add nothing
    vs.push_back(v);
  }
  if (vs.empty()) {
    cx.Set(0, cx.e().Splat(0, cx.OutDType(0), out));
    return Status::Ok();
  }
  cx.Set(0, cx.e().Concat(vs, axis));
  return Status::Ok();
}

// ONNX Slice (opset >= 10: inputs; older: attributes) with ONNX's clamping rules.
Status SliceOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  const int64_t r = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (cx.node().opset < 10) {
    starts = cx.node().GetInts("starts");
    ends = cx.node().GetInts("ends");
    axes = cx.node().GetInts("axes");
  } else {
    VT_ASSIGN_OR_RETURN(starts, cx.ConstInts(1));
    VT_ASSIGN_OR_RETURN(ends, cx.ConstInts(2));
    if (cx.has_input(3)) {
      VT_ASSIGN_OR_RETURN(axes, cx.ConstInts(3));
    }
    if (cx.has_input(4)) {
      VT_ASSIGN_OR_RETURN(steps, cx.ConstInts(4));
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return cx.Error("starts, ends, axes and steps differ in length");
  std::vector<int64_t> b(static_cast<size_t>(r), 0), l(x.shape.begin(), x.shape.end()),
      s(static_cast<size_t>(r), 1);
  std::vector<int64_t> rev;
  for (size_t i = 0; i < starts.size(); ++i) {
    VT_ASSIGN_OR_RETURN(int64_t a, NormAxis(cx, axes[i], r));
    VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, {a}, "clamping the slice's starts and ends"));
    const int64_t d = x.shape[static_cast<size_t>(a)];
    const int64_t step = steps[i];
    if (step == 0) return cx.Error("step 0");
    int64_t st = starts[i] < 0 ? starts[i] + d : starts[i];
    int64_t en = ends[i] < 0 ? ends[i] + d : ends[i];
    const size_t ai = static_cast<size_t>(a);
    if (step > 0) {
      st = std::clamp<int64_t>(st, 0, d);
      en = std::clamp<int64_t>(en, 0, d);
      b[ai] = st;
      l[ai] = std::max(st, en);
      s[ai] = step;
    } else {
      st = std::clamp<int64_t>(st, 0, d - 1);
      en = std::clamp<int64_t>(en, -1, d - 1);
      const int64_t count = st > en ? (st - en + (-step) - 1) / (-step) : 0;
      // Reversed axis: element j of the reversal is element d - 1 - j of x.
      rev.push_back(a);
      b[ai] = d - 1 - st;
      l[ai] = count == 0 ? b[ai] : b[ai] + (count - 1) * (-step) + 1;
      s[ai] = -step;
    }
  }
  std::sort(rev.begin(), rev.end());
  Val v = cx.e().Reverse(x, rev);
  v = cx.e().Slice(v, b, l, s);
  if (v.shape != cx.OutShape(0))
    return cx.Error("slice gives " + ShapeToString(v.shape) + ", expected " + ShapeToString(cx.OutShape(0)));
  cx.Set(0, v);
  return Status::Ok();
}

Status GatherOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val data, cx.In(0));
  const int64_t r = static_cast<int64_t>(data.shape.size());
  VT_ASSIGN_OR_RETURN(int64_t axis, NormAxis(cx, cx.node().GetInt("axis", 0), r));
  VT_RETURN_IF_ERROR(cx.RequireStatic(0, data, {axis}, "normalizing the gather's indices"));
  const int64_t d = data.shape[static_cast<size_t>(axis)];
  Emitter& e = cx.e();
  const Shape out = cx.OutShape(0);
  Val idx;
  if (const Tensor* c = cx.Const(1)) {
    // Constant indices: normalise negatives now; a scalar index is a slice.
    Tensor norm = Tensor::Empty(DType::kInt64, c->shape());
    for (int64_t i = 0; i < c->numel(); ++i) {
      int64_t v = c->GetInt64(i);
      if (v < 0) v += d;
      if (v < 0 || v >= d) return cx.Error("index " + std::to_string(c->GetInt64(i)) + " out of range");
      norm.mutable_data<int64_t>()[i] = v;
    }
    if (c->rank() == 0) {
      std::vector<int64_t> b(static_cast<size_t>(r), 0), l(data.shape.begin(), data.shape.end()),
          s(static_cast<size_t>(r), 1);
      b[static_cast<size_t>(axis)] = norm.data<int64_t>()[0];
      l[static_cast<size_t>(axis)] = b[static_cast<size_t>(axis)] + 1;
      cx.Set(0, e.Reshape(e.Slice(data, b, l, s), out));
      return Status::Ok();
    }
    VT_ASSIGN_OR_RETURN(idx, e.ConstantTensor(norm));
  } else {
    VT_ASSIGN_OR_RETURN(idx, cx.In(1));
    idx = e.Convert(idx, DType::kInt64);
    Val zero = e.Splat(0, DType::kInt64, idx.shape);
    Val wrapped = e.Binary("stablehlo.add", idx, e.Splat(static_cast<double>(d), DType::kInt64, idx.shape));
    idx = e.Select(e.Compare("LT", idx, zero), wrapped, idx);
  }
  const int64_t q = static_cast<int64_t>(idx.shape.size());
  std::vector<int64_t> offset_dims, slice_sizes(data.shape.begin(), data.shape.end());
  for (int64_t i = 0; i < axis; ++i) offset_dims.push_back(i);
  for (int64_t i = axis + 1; i < r; ++i) offset_dims.push_back(i + q - 1);
  slice_sizes[static_cast<size_t>(axis)] = 1;
  auto list = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  const std::string attrs = "dimension_numbers = #stablehlo.gather<offset_dims = " + list(offset_dims) +
                            ", collapsed_slice_dims = [" + std::to_string(axis) +
                            "], start_index_map = [" + std::to_string(axis) +
                            "], index_vector_dim = " + std::to_string(q) +
                            ">, slice_sizes = " + mlir::ArrayI64(slice_sizes) +
                            ", indices_are_sorted = false";
  if (HasDynamicDims(data.shape)) {
    // Slice sizes that follow a dynamic dim of the data are an operand: dynamic_gather.
    const size_t at = attrs.find(", slice_sizes = ");
    const std::string dyn_attrs = attrs.substr(0, at) + ", indices_are_sorted = false";
    cx.Set(0, e.Op("stablehlo.dynamic_gather", {data, idx, e.ShapeTensor(slice_sizes)}, dyn_attrs,
                   data.dtype, out));
    return Status::Ok();
  }
  cx.Set(0, e.Op("stablehlo.gather", {data, idx}, attrs, data.dtype, out));
  return Status::Ok();
}

// Reflect / edge padding of one axis: pieces sliced from x, reversed for reflect.
Val PadAxis(Emitter& e, const Val& x, int64_t axis, int64_t lo, int64_t hi, bool reflect) {
  const size_t a = static_cast<size_t>(axis);
  const int64_t d = x.shape[a];
  const int64_t r = static_cast<int64_t>(x.shape.size());
  auto piece = [&](int64_t start, int64_t len) {
    std::vector<int64_t> b(static_cast<size_t>(r), 0), l(x.shape.begin(), x.shape.end()),
        s(static_cast<size_t>(r), 1);
    b[a] = start;
    l[a] = start + len;
    return e.Slice(x, b, l, s);
  };
  std::vector<Val> parts;
  if (lo > 0) {
    if (reflect) {
      parts.push_back(e.Reverse(piece(1, lo), {axis}));
    } else {
      Shape s = x.shape;
      s[a] = lo;
      parts.push_back(e.BroadcastTo(piece(0, 1), s));
    }
  }
  parts.push_back(x);
  if (hi > 0) {
    if (reflect) {
      parts.push_back(e.Reverse(piece(d - 1 - hi, hi), {axis}));
    } else {
      Shape s = x.shape;
      s[a] = hi;
      parts.push_back(e.BroadcastTo(piece(d - 1, 1), s));
    }
  }
  return e.Concat(parts, axis);
}

Status PadOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  const int64_t r = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> pads;
  if (cx.node().opset < 11) {
    pads = cx.node().GetInts("pads");
  } else {
    VT_ASSIGN_OR_RETURN(pads, cx.ConstInts(1));
  }
  std::vector<int64_t> axes;
  if (cx.has_input(3)) {
    VT_ASSIGN_OR_RETURN(axes, cx.ConstInts(3));
  } else {
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size()) return cx.Error("pads must have 2 values per axis");
  std::vector<int64_t> lo(static_cast<size_t>(r), 0), hi(static_cast<size_t>(r), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    VT_ASSIGN_OR_RETURN(int64_t a, NormAxis(cx, axes[i], r));
    lo[static_cast<size_t>(a)] = pads[i];
    hi[static_cast<size_t>(a)] = pads[i + axes.size()];
    if (pads[i] != 0 || pads[i + axes.size()] != 0)
      VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, {a}, "padding"));
  }
  const std::string mode = cx.node().GetString("mode", "constant");
  Emitter& e = cx.e();
  if (mode == "constant") {
    Val value;
    if (cx.node().opset < 11) {
      value = e.Scalar(cx.node().GetFloat("value", 0.0f), x.dtype);
    } else if (cx.has_input(2)) {
      VT_ASSIGN_OR_RETURN(value, cx.In(2));
      value = e.Reshape(value, {});
    } else {
      value = e.Scalar(0, x.dtype);
    }
    std::vector<int64_t> interior(static_cast<size_t>(r), 0);
    Shape out = x.shape;  // padded dims are static
    for (size_t i = 0; i < out.size(); ++i)
      if (!IsDynamicDim(out[i])) out[i] += lo[i] + hi[i];
    cx.Set(0, e.Op("stablehlo.pad", {x, value},
                   "edge_padding_low = " + mlir::ArrayI64(lo) + ", edge_padding_high = " +
                       mlir::ArrayI64(hi) + ", interior_padding = " + mlir::ArrayI64(interior),
                   x.dtype, out));
    return Status::Ok();
  }
  if (mode != "reflect" && mode != "edge") return cx.Unsupported("pad mode '" + mode + "'");
  Val v = x;
  for (int64_t a = 0; a < r; ++a) {
    const size_t ai = static_cast<size_t>(a);
    if (lo[ai] < 0 || hi[ai] < 0) return cx.Unsupported("negative pads with mode " + mode);
    if (mode == "reflect" && (lo[ai] || hi[ai]) && (lo[ai] >= x.shape[ai] || hi[ai] >= x.shape[ai]))
      return cx.Error("reflect pads must be smaller than the dim");
    if (lo[ai] || hi[ai]) v = PadAxis(e, v, a, lo[ai], hi[ai], mode == "reflect");
  }
  cx.Set(0, v);
  return Status::Ok();
}

Status ExpandOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  cx.Set(0, cx.e().BroadcastTo(x, cx.OutShape(0)));
  return Status::Ok();
}

Status TileOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  VT_ASSIGN_OR_RETURN(std::vector<int64_t> reps, cx.ConstInts(1));
  if (reps.size() != x.shape.size()) return cx.Error("repeats must have one value per dim");
  Shape wide;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < reps.size(); ++i) {
    wide.push_back(reps[i]);
    wide.push_back(x.shape[i]);
    dims.push_back(static_cast<int64_t>(2 * i + 1));
  }
  Val b = cx.e().BroadcastInDim(x, wide, dims);
  cx.Set(0, cx.e().Reshape(b, cx.OutShape(0)));
  return Status::Ok();
}

Status SplitOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  const int64_t r = static_cast<int64_t>(x.shape.size());
  VT_ASSIGN_OR_RETURN(int64_t axis, NormAxis(cx, cx.node().GetInt("axis", 0), r));
  VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, {axis}, "splitting"));
  int64_t offset = 0;
  for (size_t o = 0; o < cx.node().outputs.size(); ++o) {
    // Output sizes come from shape specialization (covers split input, attribute, equal
    // parts and num_outputs).
    if (cx.node().outputs[o].empty()) return cx.Unsupported("an unnamed Split output");
    const int64_t len = cx.OutShape(o)[static_cast<size_t>(axis)];
    std::vector<int64_t> b(static_cast<size_t>(r), 0), l(x.shape.begin(), x.shape.end()),
        s(static_cast<size_t>(r), 1);
    b[static_cast<size_t>(axis)] = offset;
    l[static_cast<size_t>(axis)] = offset + len;
    cx.Set(o, cx.e().Slice(x, b, l, s));
    offset += len;
  }
  return Status::Ok();
}

}  // namespace

void AddShapeConverters(std::map<std::string, Converter>& m) {
  m["Reshape"] = ReshapeLike;
  m["Flatten"] = ReshapeLike;
  m["Squeeze"] = ReshapeLike;
  m["Unsqueeze"] = ReshapeLike;
  m["Transpose"] = TransposeOp;
  m["Concat"] = ConcatOp;
  m["Slice"] = SliceOp;
  m["Gather"] = GatherOp;
  m["Pad"] = PadOp;
  m["Expand"] = ExpandOp;
  m["Tile"] = TileOp;
  m["Split"] = SplitOp;
}

}  // namespace vt::hlo
