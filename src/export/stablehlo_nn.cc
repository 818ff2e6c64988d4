// Neural-network ONNX ops -> StableHLO: Conv / ConvTranspose (stablehlo.convolution, NCHW x
// OIHW), MatMul / Gemm (dot_general), pooling (reduce_window, exact ONNX averaging counts),
// BatchNormalization (batch_norm_inference), Layer/InstanceNormalization (their formulas) and
// Resize (per-axis gather for nearest, interpolation matrices for linear/cubic, both computed
// by the runtime's own Resize so the export has its exact coordinate rules).
#include <algorithm>
#include <cstring>
#include <limits>

#include "export/mlir_text.h"
#include "export/stablehlo_emitter.h"
#include "vtensor/graph/fused_attributes.h"
#include "vtensor/runtime/session.h"

namespace vt::hlo {

namespace {

std::string SpatialList(int64_t n) {
  std::string s;
  for (int64_t i = 0; i < n; ++i) s += ", " + std::to_string(i);
  return s;
}

std::vector<int64_t> IntsOr(const Node& n, const char* name, size_t count, int64_t def) {
  std::vector<int64_t> v = n.GetInts(name);
  if (v.empty()) v.assign(count, def);
  return v;
}

std::vector<int64_t> AllDims(const Val& v) {
  std::vector<int64_t> d;
  for (size_t i = 0; i < v.shape.size(); ++i) d.push_back(static_cast<int64_t>(i));
  return d;
}

// Every dim but the batch (dim 0): a dynamic batch is all the NCHW ops below accept.
std::vector<int64_t> NonBatchDims(const Val& v) {
  std::vector<int64_t> d = AllDims(v);
  if (!d.empty()) d.erase(d.begin());
  return d;
}

struct Window {
  std::vector<int64_t> k, s, d, lo, hi;
};

// Kernel, strides, dilations and explicit pads of a Conv / pool node with `n` spatial dims,
// auto_pad resolved against the static input extents `in`.
Expected<Window> ResolveWindow(const NodeContext& cx, const std::vector<int64_t>& k,
                               const std::vector<int64_t>& in) {
  const size_t n = k.size();
  Window w;
  w.k = k;
  w.s = IntsOr(cx.node(), "strides", n, 1);
  w.d = IntsOr(cx.node(), "dilations", n, 1);
  std::vector<int64_t> pads = IntsOr(cx.node(), "pads", 2 * n, 0);
  if (w.s.size() != n || w.d.size() != n || pads.size() != 2 * n)
    return cx.Error("strides, dilations and pads must match the spatial rank");
  w.lo.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
  w.hi.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
  const std::string auto_pad = cx.node().GetString("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    std::fill(w.lo.begin(), w.lo.end(), 0);
    std::fill(w.hi.begin(), w.hi.end(), 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      const int64_t out = (in[i] + w.s[i] - 1) / w.s[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * w.s[i] + (w.k[i] - 1) * w.d[i] + 1 - in[i]);
      const int64_t small = total / 2;
      w.lo[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.hi[i] = total - w.lo[i];
    }
  } else if (auto_pad != "NOTSET") {
    return cx.Error("auto_pad '" + auto_pad + "'");
  }
  return w;
}

std::vector<std::pair<int64_t, int64_t>> PadPairs(const std::vector<int64_t>& lo,
                                                  const std::vector<int64_t>& hi) {
  std::vector<std::pair<int64_t, int64_t>> p;
  for (size_t i = 0; i < lo.size(); ++i) p.push_back({lo[i], hi[i]});
  return p;
}

std::string ConvAttrs(const std::vector<int64_t>& strides,
                      const std::vector<std::pair<int64_t, int64_t>>& padding,
                      const std::vector<int64_t>& lhs_dil, const std::vector<int64_t>& rhs_dil,
                      const std::string& kernel_dims, int64_t groups) {
  const int64_t n = static_cast<int64_t>(strides.size());
  return "window_strides = " + mlir::ArrayI64(strides) + ", padding = " + mlir::DenseI64Matrix(padding) +
         ", lhs_dilation = " + mlir::ArrayI64(lhs_dil) + ", rhs_dilation = " + mlir::ArrayI64(rhs_dil) +
         ", dimension_numbers = #stablehlo.conv<[b, f" + SpatialList(n) + "]x[" + kernel_dims +
         SpatialList(n) + "]->[b, f" + SpatialList(n) + "]>, feature_group_count = " +
         std::to_string(groups) + " : i64, batch_group_count = 1 : i64";
}

Status AddChannelBias(NodeContext& cx, Val* y, size_t bias_input) {
  if (!cx.has_input(bias_input)) return Status::Ok();
  VT_ASSIGN_OR_RETURN(Val b, cx.In(bias_input));
  b = cx.e().Convert(b, y->dtype);
  *y = cx.e().Binary("stablehlo.add", *y, cx.e().BroadcastInDim(b, y->shape, {1}));
  return Status::Ok();
}

Status ConvOp(NodeContext& cx) {
  // A session's fused forms (passes/fusion.h FuseConv, FuseDepthwisePointwise); export runs no
  // fusions.
  if (cx.node().FindAttr(kConvActAttr) != nullptr || cx.node().FindAttr(kConvDwStridesAttr) != nullptr)
    return cx.Unsupported("a fused activation or depthwise stage (vt.act, vt.dw_*)");
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  VT_ASSIGN_OR_RETURN(Val w, cx.In(1));
  if (x.shape.size() < 3 || w.shape.size() != x.shape.size())
    return cx.Error("X and W must have the same rank >= 3");
  const size_t n = x.shape.size() - 2;
  VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, NonBatchDims(x), "the convolution's padding and output size"));
  VT_RETURN_IF_ERROR(cx.RequireStatic(1, w, AllDims(w), "the convolution's filter"));
  std::vector<int64_t> k = cx.node().GetInts("kernel_shape");
  if (k.empty()) k.assign(w.shape.begin() + 2, w.shape.end());
  std::vector<int64_t> in(x.shape.begin() + 2, x.shape.end());
  VT_ASSIGN_OR_RETURN(Window win, ResolveWindow(cx, k, in));
  const int64_t group = cx.node().GetInt("group", 1);
  Val y = cx.e().Op("stablehlo.convolution", {x, w},
                    ConvAttrs(win.s, PadPairs(win.lo, win.hi), std::vector<int64_t>(n, 1), win.d,
                              "o, i", group),
                    x.dtype, cx.OutShape(0));
  VT_RETURN_IF_ERROR(AddChannelBias(cx, &y, 2));
  cx.Set(0, y);
  return Status::Ok();
}

// ConvTranspose as a convolution of the stride-dilated input with the spatially reversed
// kernel; W [Cin, Cout/g, k...] is regrouped to [Cin/g, Cout, k...] for feature groups.
Status ConvTransposeOp(NodeContext& cx) {
  // A session's fused form (passes/fusion.h FuseConv); export runs no fusions.
  if (cx.node().FindAttr(kConvActAttr) != nullptr)
    return cx.Unsupported("a fused activation (vt.act)");
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  VT_ASSIGN_OR_RETURN(Val w, cx.In(1));
  if (x.shape.size() < 3 || w.shape.size() != x.shape.size())
    return cx.Error("X and W must have the same rank >= 3");
  const size_t n = x.shape.size() - 2;
  VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, NonBatchDims(x), "the transposed convolution's padding"));
  VT_RETURN_IF_ERROR(cx.RequireStatic(1, w, AllDims(w), "the transposed convolution's filter"));
  const Shape out = cx.OutShape(0);
  std::vector<int64_t> k = cx.node().GetInts("kernel_shape");
  if (k.empty()) k.assign(w.shape.begin() + 2, w.shape.end());
  std::vector<int64_t> s = IntsOr(cx.node(), "strides", n, 1);
  std::vector<int64_t> d = IntsOr(cx.node(), "dilations", n, 1);
  std::vector<int64_t> opad = IntsOr(cx.node(), "output_padding", n, 0);
  std::vector<int64_t> pads = IntsOr(cx.node(), "pads", 2 * n, 0);
  if (s.size() != n || d.size() != n || opad.size() != n || pads.size() != 2 * n)
    return cx.Error("strides, dilations, output_padding and pads must match the spatial rank");
  const std::string auto_pad = cx.node().GetString("auto_pad", "NOTSET");
  const bool derive = auto_pad != "NOTSET" || !cx.node().GetInts("output_shape").empty();
  std::vector<std::pair<int64_t, int64_t>> padding;
  for (size_t i = 0; i < n; ++i) {
    int64_t lo = pads[i], hi = pads[i + n];
    if (derive) {
      // ONNX: total_padding = s*(in-1) + output_padding + (k-1)*d + 1 - out.
      const int64_t total = s[i] * (x.shape[i + 2] - 1) + opad[i] + (k[i] - 1) * d[i] + 1 - out[i + 2];
      if (auto_pad == "SAME_UPPER") {
        lo = total / 2;
        hi = total - total / 2;
      } else {
        lo = total - total / 2;
        hi = total / 2;
      }
    }
    const int64_t span = d[i] * (k[i] - 1);
    padding.push_back({span - lo, span - hi + opad[i]});
  }
  const int64_t group = cx.node().GetInt("group", 1);
  Emitter& e = cx.e();
  if (group != 1) {
    const int64_t cin = w.shape[0], cog = w.shape[1];
    if (cin % group != 0) return cx.Error("W's first dim is not divisible by group");
    Shape g4 = {group, cin / group, cog};
    g4.insert(g4.end(), w.shape.begin() + 2, w.shape.end());
    std::vector<int64_t> perm = {1, 0, 2};
    for (size_t i = 0; i < n; ++i) perm.push_back(static_cast<int64_t>(3 + i));
    Shape regrouped = {cin / group, group * cog};
    regrouped.insert(regrouped.end(), w.shape.begin() + 2, w.shape.end());
    w = e.Reshape(e.Transpose(e.Reshape(w, g4), perm), regrouped);
  }
  std::vector<int64_t> spatial;
  for (size_t i = 0; i < n; ++i) spatial.push_back(static_cast<int64_t>(2 + i));
  w = e.Reverse(w, spatial);
  Val y = e.Op("stablehlo.convolution", {x, w},
               ConvAttrs(std::vector<int64_t>(n, 1), padding, s, d, "i, o", group), x.dtype, out);
  VT_RETURN_IF_ERROR(AddChannelBias(cx, &y, 2));
  cx.Set(0, y);
  return Status::Ok();
}

// reduce_window over the spatial dims; the high padding is chosen so the output has the
// specialized extent (covers ceil_mode).
Expected<Val> PoolWindow(NodeContext& cx, const Val& x, const Window& w, const std::string& body,
                         double init, std::vector<int64_t>* hi_used) {
  const Shape out = cx.OutShape(0);
  const size_t n = w.k.size();
  std::vector<int64_t> window = {1, 1}, strides = {1, 1}, wdil = {1, 1};
  std::vector<std::pair<int64_t, int64_t>> padding = {{0, 0}, {0, 0}};
  hi_used->clear();
  for (size_t i = 0; i < n; ++i) {
    window.push_back(w.k[i]);
    strides.push_back(w.s[i]);
    wdil.push_back(w.d[i]);
    const int64_t hi = (out[i + 2] - 1) * w.s[i] + (w.k[i] - 1) * w.d[i] + 1 - x.shape[i + 2] - w.lo[i];
    hi_used->push_back(hi);
    padding.push_back({w.lo[i], hi});
  }
  Emitter& e = cx.e();
  Val init_v = e.Scalar(init, x.dtype);
  // Built through OpWithRegions to add window_dilations.
  const std::string t = mlir::TensorType(x.dtype, {});
  e.BeginRegion();
  std::string body_text;
  {
    const std::string a = e.Fresh(), b = e.Fresh(), r = e.Fresh();
    e.Line("^bb0(" + a + ": " + t + ", " + b + ": " + t + "):");
    e.Line("  " + r + " = \"" + body + "\"(" + a + ", " + b + ") : (" + t + ", " + t + ") -> " + t);
    e.Line("  \"stablehlo.return\"(" + r + ") : (" + t + ") -> ()");
  }
  body_text = e.EndRegion();
  std::string attrs = "window_dimensions = " + mlir::ArrayI64(window) + ", window_strides = " +
                      mlir::ArrayI64(strides) + ", window_dilations = " + mlir::ArrayI64(wdil) +
                      ", padding = " + mlir::DenseI64Matrix(padding);
  return e.OpWithRegions("stablehlo.reduce_window", {x, init_v}, {body_text}, attrs,
                         {{x.dtype, out}})[0];
}

Status MaxPoolOp(NodeContext& cx) {
  if (cx.node().outputs.size() > 1 && !cx.node().outputs[1].empty())
    return cx.Unsupported("MaxPool Indices output");
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  std::vector<int64_t> k = cx.node().GetInts("kernel_shape");
  if (k.size() + 2 != x.shape.size()) return cx.Error("kernel_shape must match the spatial rank");
  VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, NonBatchDims(x), "the pooling window's padding"));
  VT_ASSIGN_OR_RETURN(Window w, ResolveWindow(cx, k, Shape(x.shape.begin() + 2, x.shape.end())));
  std::vector<int64_t> hi;
  VT_ASSIGN_OR_RETURN(Val y, PoolWindow(cx, x, w, "stablehlo.maximum",
                                        -std::numeric_limits<double>::infinity(), &hi));
  cx.Set(0, y);
  return Status::Ok();
}

// Number of input elements (count_include_pad: also explicit pad elements) under each window
// position of one spatial dim.
std::vector<int64_t> WindowCounts(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t lo,
                                  int64_t hi, bool include_pad) {
  std::vector<int64_t> c(static_cast<size_t>(out), 0);
  const int64_t first = include_pad ? -lo : 0, last = include_pad ? in + hi : in;
  for (int64_t o = 0; o < out; ++o)
    for (int64_t t = 0; t < k; ++t) {
      const int64_t p = o * s - lo + t * d;
      if (p >= first && p < last) ++c[static_cast<size_t>(o)];
    }
  return c;
}

Status AveragePoolOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  std::vector<int64_t> k = cx.node().GetInts("kernel_shape");
  if (k.size() + 2 != x.shape.size()) return cx.Error("kernel_shape must match the spatial rank");
  VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, NonBatchDims(x), "the averaging counts"));
  VT_ASSIGN_OR_RETURN(Window w, ResolveWindow(cx, k, Shape(x.shape.begin() + 2, x.shape.end())));
  std::vector<int64_t> hi;
  VT_ASSIGN_OR_RETURN(Val sum, PoolWindow(cx, x, w, "stablehlo.add", 0, &hi));
  const Shape out = cx.OutShape(0);
  const bool include_pad = cx.node().GetInt("count_include_pad", 0) != 0;
  // Divisor over the spatial output grid, the product of the per-dim counts.
  const size_t n = k.size();
  std::vector<std::vector<int64_t>> counts;
  for (size_t i = 0; i < n; ++i)
    counts.push_back(WindowCounts(x.shape[i + 2], out[i + 2], w.k[i], w.s[i], w.d[i], w.lo[i], w.hi[i],
                                  include_pad));
  Shape grid(out.begin() + 2, out.end());
  Tensor div = Tensor::Empty(DType::kFloat32, grid);
  const int64_t total = NumElements(grid);
  for (int64_t f = 0; f < total; ++f) {
    int64_t rem = f, prod = 1;
    for (size_t i = n; i-- > 0;) {
      prod *= counts[i][static_cast<size_t>(rem % grid[i])];
      rem /= grid[i];
    }
    div.mutable_data<float>()[f] = static_cast<float>(std::max<int64_t>(prod, 1));
  }
  Emitter& e = cx.e();
  VT_ASSIGN_OR_RETURN(Val dv, e.ConstantTensor(div));
  dv = e.Convert(dv, x.dtype);
  std::vector<int64_t> dims;
  for (size_t i = 0; i < n; ++i) dims.push_back(static_cast<int64_t>(i + 2));
  cx.Set(0, e.Binary("stablehlo.divide", sum, e.BroadcastInDim(dv, out, dims)));
  return Status::Ok();
}

Status GlobalPoolOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (size_t i = 2; i < x.shape.size(); ++i) {
    dims.push_back(static_cast<int64_t>(i));
    count *= x.shape[i];
  }
  Emitter& e = cx.e();
  const bool avg = cx.node().op_type == "GlobalAveragePool";
  if (avg) VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, dims, "the average's element count"));
  Val r = avg ? e.Reduce(x, dims, "stablehlo.add", 0)
              : e.Reduce(x, dims, "stablehlo.maximum", -std::numeric_limits<double>::infinity());
  if (avg) r = e.Binary("stablehlo.divide", r, e.Splat(static_cast<double>(count), r.dtype, r.shape));
  cx.Set(0, e.Reshape(r, cx.OutShape(0)));
  return Status::Ok();
}

Status BatchNormOp(NodeContext& cx) {
  if (cx.node().GetInt("training_mode", 0) != 0) return cx.Unsupported("training_mode = 1");
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  std::vector<Val> ops = {x};
  for (size_t i = 1; i <= 4; ++i) {
    VT_ASSIGN_OR_RETURN(Val v, cx.In(i));
    ops.push_back(cx.e().Convert(v, x.dtype));
  }
  const float eps = cx.node().GetFloat("epsilon", 1e-5f);
  cx.Set(0, cx.e().Op("stablehlo.batch_norm_inference", ops,
                      "epsilon = " + mlir::FloatLiteral(eps, DType::kFloat32) +
                          " : f32, feature_index = 1 : i64",
                      x.dtype, x.shape));
  return Status::Ok();
}

// (x - mean) / sqrt(var + eps) over `dims`, with mean/var broadcast back.
Val Normalize(Emitter& e, const Val& x, const std::vector<int64_t>& dims, double eps) {
  int64_t count = 1;
  for (int64_t d : dims) count *= x.shape[static_cast<size_t>(d)];
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < static_cast<int64_t>(x.shape.size()); ++i)
    if (std::find(dims.begin(), dims.end(), i) == dims.end()) keep.push_back(i);
  auto mean_of = [&](const Val& v) {
    Val s = e.Reduce(v, dims, "stablehlo.add", 0);
    s = e.Binary("stablehlo.divide", s, e.Splat(static_cast<double>(count), s.dtype, s.shape));
    return e.BroadcastInDim(s, x.shape, keep);
  };
  Val centered = e.Binary("stablehlo.subtract", x, mean_of(x));
  Val var = mean_of(e.Binary("stablehlo.multiply", centered, centered));
  Val denom = e.Unary("stablehlo.sqrt", e.Binary("stablehlo.add", var, e.Splat(eps, x.dtype, x.shape)));
  return e.Binary("stablehlo.divide", centered, denom);
}

Status LayerNormOp(NodeContext& cx) {
  for (size_t o = 1; o < cx.node().outputs.size(); ++o)
    if (!cx.node().outputs[o].empty()) return cx.Unsupported("Mean / InvStdDev outputs");
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  const int64_t r = static_cast<int64_t>(x.shape.size());
  VT_ASSIGN_OR_RETURN(int64_t axis, NormAxis(cx, cx.node().GetInt("axis", -1), r));
  std::vector<int64_t> dims;
  for (int64_t i = axis; i < r; ++i) dims.push_back(i);
  VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, dims, "the normalized element count"));
  Emitter& e = cx.e();
  Val y = Normalize(e, x, dims, cx.node().GetFloat("epsilon", 1e-5f));
  VT_ASSIGN_OR_RETURN(Val scale, cx.In(1));
  y = e.Binary("stablehlo.multiply", y, e.BroadcastTo(scale, x.shape));
  if (cx.has_input(2)) {
    VT_ASSIGN_OR_RETURN(Val b, cx.In(2));
    y = e.Binary("stablehlo.add", y, e.BroadcastTo(b, x.shape));
  }
  cx.Set(0, y);
  return Status::Ok();
}

Status InstanceNormOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  std::vector<int64_t> dims;
  for (size_t i = 2; i < x.shape.size(); ++i) dims.push_back(static_cast<int64_t>(i));
  VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, dims, "the normalized element count"));
  Emitter& e = cx.e();
  Val y = Normalize(e, x, dims, cx.node().GetFloat("epsilon", 1e-5f));
  VT_ASSIGN_OR_RETURN(Val scale, cx.In(1));
  VT_ASSIGN_OR_RETURN(Val b, cx.In(2));
  y = e.Binary("stablehlo.multiply", y, e.BroadcastInDim(scale, x.shape, {1}));
  y = e.Binary("stablehlo.add", y, e.BroadcastInDim(b, x.shape, {1}));
  cx.Set(0, y);
  return Status::Ok();
}

// A = MatMul semantics (numpy): batch dims broadcast, 1-D operands promoted then dropped.
Status MatMulOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val a, cx.In(0));
  VT_ASSIGN_OR_RETURN(Val b, cx.In(1));
  Emitter& e = cx.e();
  const Shape out = cx.OutShape(0);
  if (a.shape.size() == 1) a = e.Reshape(a, {1, a.shape[0]});
  if (b.shape.size() == 1) b = e.Reshape(b, {b.shape[0], 1});
  const size_t ra = a.shape.size(), rb = b.shape.size();
  const int64_t M = a.shape[ra - 2], K = a.shape[ra - 1], N = b.shape[rb - 1];
  if (b.shape[rb - 2] != K) return cx.Error("inner dims differ: " + ShapeToString(a.shape) + " x " + ShapeToString(b.shape));
  Val y;
  if (rb == 2) {
    Shape r(a.shape.begin(), a.shape.end() - 1);
    r.push_back(N);
    y = e.DotGeneral(a, b, {}, {}, {static_cast<int64_t>(ra - 1)}, {0}, r);
  } else {
    // Broadcast both batch prefixes to a common one.
    Shape ba(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
    const size_t nb = std::max(ba.size(), bb.size());
    Shape batch(nb, 1);
    for (size_t i = 0; i < nb; ++i) {
      const int64_t x = i + ba.size() >= nb ? ba[i + ba.size() - nb] : 1;
      const int64_t z = i + bb.size() >= nb ? bb[i + bb.size() - nb] : 1;
      batch[i] = x == 1 ? z : x;
    }
    Shape sa = batch, sb = batch;
    sa.insert(sa.end(), {M, K});
    sb.insert(sb.end(), {K, N});
    a = e.BroadcastTo(a, sa);
    b = e.BroadcastTo(b, sb);
    std::vector<int64_t> bd;
    for (size_t i = 0; i < nb; ++i) bd.push_back(static_cast<int64_t>(i));
    Shape r = batch;
    r.insert(r.end(), {M, N});
    y = e.DotGeneral(a, b, bd, bd, {static_cast<int64_t>(nb + 1)}, {static_cast<int64_t>(nb)}, r);
  }
  cx.Set(0, e.Reshape(y, out));
  return Status::Ok();
}

Status GemmOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val a, cx.In(0));
  VT_ASSIGN_OR_RETURN(Val b, cx.In(1));
  Emitter& e = cx.e();
  const bool ta = cx.node().GetInt("transA", 0) != 0, tb = cx.node().GetInt("transB", 0) != 0;
  const Shape out = cx.OutShape(0);
  Val y = e.DotGeneral(a, b, {}, {}, {ta ? 0 : 1}, {tb ? 1 : 0}, out);
  const double alpha = cx.node().GetFloat("alpha", 1.0f), beta = cx.node().GetFloat("beta", 1.0f);
  if (alpha != 1.0) y = e.Binary("stablehlo.multiply", y, e.Splat(alpha, y.dtype, out));
  if (cx.has_input(2) && beta != 0.0) {
    VT_ASSIGN_OR_RETURN(Val c, cx.In(2));
    c = e.BroadcastTo(c, out);
    if (beta != 1.0) c = e.Binary("stablehlo.multiply", c, e.Splat(beta, c.dtype, out));
    y = e.Binary("stablehlo.add", y, c);
  }
  cx.Set(0, y);
  return Status::Ok();
}

// Runs the node's own Resize on a basis input to read off how output index o along `axis`
// combines input indices: R[o][i].
Expected<std::vector<float>> ResizeMatrix(NodeContext& cx, int64_t axis, const Shape& in_shape,
                                          int64_t out_extent, const Tensor* scales) {
  const int64_t r = static_cast<int64_t>(in_shape.size());
  const int64_t in = in_shape[static_cast<size_t>(axis)];
  const int64_t j = axis == 0 ? 1 : 0;  // the dim carrying the basis index
  Shape bshape(static_cast<size_t>(r), 1);
  bshape[static_cast<size_t>(j)] = in;
  bshape[static_cast<size_t>(axis)] = in;
  Tensor basis = Tensor::Zeros(DType::kFloat32, bshape);
  const std::vector<int64_t> st = RowMajorStrides(bshape);
  for (int64_t i = 0; i < in; ++i)
    basis.mutable_data<float>()[i * st[static_cast<size_t>(j)] + i * st[static_cast<size_t>(axis)]] = 1;

  Model m;
  m.ir_version = 8;
  m.opsets[""] = cx.node().opset;
  m.graph = std::make_shared<Graph>();
  Graph& g = *m.graph;
  Node n = cx.node();
  n.inputs = {"basis"};
  g.inputs.push_back({"basis", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  if (n.op_type == "Resize" && n.opset >= 11) n.inputs.push_back("");  // roi
  if (scales != nullptr) {
    Tensor sc = Tensor::Empty(DType::kFloat32, {r});
    for (int64_t d = 0; d < r; ++d)
      sc.mutable_data<float>()[d] = d == axis ? static_cast<float>(scales->GetDouble(axis)) : 1.0f;
    g.initializers["scales"] = sc;
    n.inputs.push_back("scales");
  } else {
    Tensor sz = Tensor::Empty(DType::kInt64, {r});
    for (int64_t d = 0; d < r; ++d) sz.mutable_data<int64_t>()[d] = d == axis ? out_extent : bshape[static_cast<size_t>(d)];
    g.initializers["scales"] = Tensor::Empty(DType::kFloat32, {0});
    g.initializers["sizes"] = sz;
    n.inputs.push_back("scales");
    n.inputs.push_back("sizes");
  }
  n.outputs = {"y"};
  g.nodes.push_back(n);
  g.outputs.push_back({"y", TensorSpec()});
  SessionOptions so;
  so.fold_constants = false;
  VT_ASSIGN_OR_RETURN(auto s, Session::Create(std::move(m), so));
  VT_ASSIGN_OR_RETURN(std::vector<Value> outs, s->Run({Value(basis)}));
  const Tensor y = outs[0].tensor().Contiguous();
  Shape expect = bshape;
  expect[static_cast<size_t>(axis)] = out_extent;
  if (y.shape() != expect)
    return cx.Error("resize of axis " + std::to_string(axis) + " gives " + ShapeToString(y.shape()) +
                    ", expected " + ShapeToString(expect));
  const std::vector<int64_t> ys = RowMajorStrides(y.shape());
  std::vector<float> R(static_cast<size_t>(out_extent * in));
  for (int64_t o = 0; o < out_extent; ++o)
    for (int64_t i = 0; i < in; ++i)
      R[static_cast<size_t>(o * in + i)] =
          y.data<float>()[i * ys[static_cast<size_t>(j)] + o * ys[static_cast<size_t>(axis)]];
  return R;
}

Status ResizeOp(NodeContext& cx) {
  const Node& node = cx.node();
  // A session's fused form (passes/fusion.h FuseResizeAdd); export runs no fusions.
  if (node.FindAttr(kResizeAddAttr) != nullptr) return cx.Unsupported("a fused Add (vt.add)");
  if (!node.GetInts("axes").empty()) return cx.Unsupported("the axes attribute");
  if (node.GetString("keep_aspect_ratio_policy", "stretch") != "stretch")
    return cx.Unsupported("keep_aspect_ratio_policy");
  if (node.GetString("coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize")
    return cx.Unsupported("coordinate_transformation_mode tf_crop_and_resize");
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  if (x.shape.size() < 2) return cx.Unsupported("rank < 2");
  const Shape out = cx.OutShape(0);
  // Scales when the node gives them (their exact values drive the coordinate mapping).
  const Tensor* scales = nullptr;
  const size_t scales_input = (node.op_type == "Upsample" || node.opset < 11) ? 1 : 2;
  if (const Tensor* t = cx.Const(scales_input); t != nullptr && t->numel() == static_cast<int64_t>(x.shape.size()))
    scales = t;
  const bool nearest = node.GetString("mode", "nearest") == "nearest";
  Emitter& e = cx.e();
  Val v = e.Convert(x, x.dtype);
  for (int64_t a = 0; a < static_cast<int64_t>(x.shape.size()); ++a) {
    const size_t ai = static_cast<size_t>(a);
    const bool unit_scale = scales == nullptr || scales->GetDouble(a) == 1.0;
    if (out[ai] == x.shape[ai] && unit_scale) continue;  // a dynamic dim is kept, not resized
    VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, {a}, "resizing along it"));
    VT_ASSIGN_OR_RETURN(std::vector<float> R, ResizeMatrix(cx, a, x.shape, out[ai], scales));
    const int64_t in = x.shape[ai], on = out[ai];
    Shape next = v.shape;
    next[ai] = on;
    if (nearest) {
      Tensor idx = Tensor::Empty(DType::kInt64, {on});
      for (int64_t o = 0; o < on; ++o) {
        int64_t pick = -1;
        for (int64_t i = 0; i < in; ++i) {
          const float w = R[static_cast<size_t>(o * in + i)];
          if (w == 1.0f && pick < 0) pick = i;
          else if (w != 0.0f) pick = -2;
        }
        if (pick < 0) return cx.Unsupported("nearest resize that is not a pure selection");
        idx.mutable_data<int64_t>()[o] = pick;
      }
      VT_ASSIGN_OR_RETURN(Val iv, e.ConstantTensor(idx));
      std::vector<int64_t> offset_dims, sizes(v.shape.begin(), v.shape.end());
      for (int64_t d = 0; d < static_cast<int64_t>(v.shape.size()); ++d)
        if (d != a) offset_dims.push_back(d);
      sizes[ai] = 1;
      std::string od = "[";
      for (size_t k = 0; k < offset_dims.size(); ++k) od += (k ? ", " : "") + std::to_string(offset_dims[k]);
      od += "]";
      const std::string dims = "dimension_numbers = #stablehlo.gather<offset_dims = " + od +
                               ", collapsed_slice_dims = [" + std::to_string(a) + "], start_index_map = [" +
                               std::to_string(a) + "], index_vector_dim = 1>";
      // A kept dynamic dim makes the slice sizes a run-time operand (dynamic_gather).
      v = HasDynamicDims(v.shape)
              ? e.Op("stablehlo.dynamic_gather", {v, iv, e.ShapeTensor(sizes)},
                     dims + ", indices_are_sorted = true", v.dtype, next)
              : e.Op("stablehlo.gather", {v, iv},
                     dims + ", slice_sizes = " + mlir::ArrayI64(sizes) + ", indices_are_sorted = true",
                     v.dtype, next);
    } else {
      Tensor rt = Tensor::Empty(DType::kFloat32, {on, in});
      std::memcpy(rt.mutable_data<float>(), R.data(), R.size() * 4);
      VT_ASSIGN_OR_RETURN(Val rv, e.ConstantTensor(rt));
      rv = e.Convert(rv, v.dtype);
      Shape dot_shape;
      for (size_t d = 0; d < v.shape.size(); ++d)
        if (d != ai) dot_shape.push_back(v.shape[d]);
      dot_shape.push_back(on);
      Val dv = e.DotGeneral(v, rv, {}, {}, {a}, {1}, dot_shape);
      // The new dim comes last; move it back to `a`.
      std::vector<int64_t> perm;
      const int64_t r = static_cast<int64_t>(v.shape.size());
      for (int64_t d = 0, k = 0; d < r; ++d) perm.push_back(d == a ? r - 1 : k++);
      v = e.Transpose(dv, perm);
    }
  }
  cx.Set(0, v);
  return Status::Ok();
}

}  // namespace

void AddNnConverters(std::map<std::string, Converter>& m) {
  m["Conv"] = ConvOp;
  m["ConvTranspose"] = ConvTransposeOp;
  m["MaxPool"] = MaxPoolOp;
  m["AveragePool"] = AveragePoolOp;
  m["GlobalAveragePool"] = GlobalPoolOp;
  m["GlobalMaxPool"] = GlobalPoolOp;
  m["BatchNormalization"] = BatchNormOp;
  m["LayerNormalization"] = LayerNormOp;
  m["InstanceNormalization"] = InstanceNormOp;
  m["MatMul"] = MatMulOp;
  m["Gemm"] = GemmOp;
  m["Resize"] = ResizeOp;
  m["Upsample"] = ResizeOp;
}

}  // namespace vt::hlo
