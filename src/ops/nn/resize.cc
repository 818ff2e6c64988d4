// Resize (opsets 10-19) and Upsample (7-9), ONNX Operators.md: parses scales / sizes / roi
// and attributes per opset into per-axis plans (resize_plan.h) and runs them
// (resize_exec.h). Nearest mode moves elements of any dtype verbatim; linear/cubic compute
// in float (double for float64 inputs; other dtypes are converted, integers rounded).
// A node that FuseResizeAdd (passes/fusion.h) gave an addend writes resize(x) + addend
// (ResizeAdd below).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/nn/resize_exec.h"
#include "ops/nn/resize_plan.h"
#include "ops/common/shape_util.h"
#include "vtensor/graph/fused_attributes.h"

namespace vt::ops {
namespace {

struct ResizeSetup {
  std::vector<ResizeAxisParams> axes;  // one per input dim
  float extrapolation = 0.0f;
};

// Scales / sizes / roi for the `axes` subset (opset 18) expanded to every dim.
Expected<std::vector<int64_t>> ResizeAxesList(const KernelContext& ctx, int rank) {
  std::vector<int64_t> axes;
  if (ctx.opset() >= 18 && ctx.node().FindAttr("axes")) {
    VT_ASSIGN_OR_RETURN(axes, NormalizeAxisList(ctx, ctx.node().GetInts("axes"), rank));
  } else {
    axes.resize(static_cast<size_t>(rank));
    std::iota(axes.begin(), axes.end(), 0);
  }
  return axes;
}

bool HasNonEmpty(const KernelContext& ctx, size_t i) {
  return ctx.has_input(i) && ctx.input_value(i)->is_tensor() && ctx.input(i).numel() > 0;
}

std::vector<double> ReadDoubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.GetDouble(i);
  return v;
}

// The attributes every axis shares (mode, coordinate transformation, nearest mode, cubic
// coefficient, exclude_outside, antialias) and the extrapolation value.
Expected<ResizeAxisParams> ReadResizeAttributes(const KernelContext& ctx, bool legacy,
                                                float* extrapolation) {
  const Node& node = ctx.node();
  auto mode = ParseResizeMode(node.GetString("mode", "nearest"));
  if (!mode.ok()) return ctx.Annotate(mode.take_status());
  if (legacy && *mode == ResizeMode::kCubic) return ctx.Error("cubic mode needs opset >= 11");
  ResizeAxisParams common;
  common.mode = *mode;
  common.coord = CoordMode::kAsymmetric;
  common.nearest = NearestMode::kLegacy;
  common.cubic_a = -0.75f;
  common.exclude_outside = false;
  common.antialias = false;
  if (!legacy) {
    auto c = ParseCoordMode(node.GetString("coordinate_transformation_mode", "half_pixel"));
    if (!c.ok()) return ctx.Annotate(c.take_status());
    common.coord = *c;
    auto n = ParseNearestMode(node.GetString("nearest_mode", "round_prefer_floor"));
    if (!n.ok()) return ctx.Annotate(n.take_status());
    common.nearest = *n;
    common.cubic_a = node.GetFloat("cubic_coeff_a", -0.75f);
    common.exclude_outside = node.GetInt("exclude_outside", 0) != 0;
    *extrapolation = node.GetFloat("extrapolation_value", 0.0f);
    common.antialias = ctx.opset() >= 18 && node.GetInt("antialias", 0) != 0;
  }
  return common;
}

// Scales or sizes as given, per resized axis (opset-dependent source).
struct ResizeTargets {
  std::vector<double> scales;  // when have_scales
  std::vector<int64_t> sizes;  // otherwise
  bool have_scales = false;
};

Expected<ResizeTargets> ReadTargets(const KernelContext& ctx, bool upsample, bool legacy) {
  ResizeTargets t;
  if (upsample && ctx.opset() < 9) {
    if (!ctx.node().FindAttr("scales")) return ctx.Error("attribute 'scales' is required");
    for (float f : ctx.node().GetFloats("scales")) t.scales.push_back(f);
    t.have_scales = true;
  } else if (legacy) {
    VT_ASSIGN_OR_RETURN(Tensor scales, ctx.RequireTensor(1));
    t.scales = ReadDoubles(scales);
    t.have_scales = true;
  } else {
    t.have_scales = HasNonEmpty(ctx, 2);
    if (t.have_scales == HasNonEmpty(ctx, 3))
      return ctx.Error("exactly one of 'scales' and 'sizes' must be given");
    if (t.have_scales) {
      t.scales = ReadDoubles(ctx.input(2));
    } else {
      VT_ASSIGN_OR_RETURN(t.sizes, ReadIntList(ctx, 3, "sizes"));
    }
  }
  return t;
}

// tf_crop_and_resize: the roi input's start and end per resized axis.
Status ReadRoi(const KernelContext& ctx, const std::vector<int64_t>& axes, ResizeSetup* s) {
  const size_t na = axes.size();
  if (!HasNonEmpty(ctx, 1)) return ctx.Error("tf_crop_and_resize needs the 'roi' input");
  std::vector<double> roi = ReadDoubles(ctx.input(1));
  if (roi.size() != 2 * na) return ctx.Error("roi must have " + std::to_string(2 * na) + " entries");
  for (size_t k = 0; k < na; ++k) {
    ResizeAxisParams& p = s->axes[static_cast<size_t>(axes[k])];
    p.roi_start = roi[k];
    p.roi_end = roi[k + na];
    if (!std::isfinite(p.roi_start) || !std::isfinite(p.roi_end)) return ctx.Error("roi must be finite");
  }
  return Status::Ok();
}

Status ApplyScales(const KernelContext& ctx, const std::vector<double>& scales,
                   const std::vector<int64_t>& axes, bool upsample, ResizeSetup* s) {
  for (size_t k = 0; k < axes.size(); ++k) {
    ResizeAxisParams& p = s->axes[static_cast<size_t>(axes[k])];
    const double sc = scales[k];
    if (!(sc > 0) || !std::isfinite(sc)) return ctx.Error("scales must be positive, got " + std::to_string(sc));
    if (upsample && ctx.opset() < 9 && sc < 1) return ctx.Error("Upsample scales must be >= 1");
    p.scale = sc;
    double extent = static_cast<double>(p.in) * sc;
    if (p.coord == CoordMode::kTfCropAndResize) extent *= p.roi_end - p.roi_start;
    if (!(extent >= 0) || extent > 1e12) return ctx.Error("output size out of range");
    p.out = static_cast<int64_t>(std::floor(extent));
    p.out_length = static_cast<double>(p.in) * sc;
  }
  return Status::Ok();
}

// Output sizes under keep_aspect_ratio_policy (opset 18; "stretch" before).
Status ApplySizes(const KernelContext& ctx, const std::vector<int64_t>& sizes,
                  const std::vector<int64_t>& axes, ResizeSetup* s) {
  const std::string policy =
      ctx.opset() >= 18 ? ctx.node().GetString("keep_aspect_ratio_policy", "stretch") : "stretch";
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return ctx.Error("unknown keep_aspect_ratio_policy '" + policy + "'");
  for (int64_t sz : sizes)
    if (sz < 0) return ctx.Error("negative output size " + std::to_string(sz));
  const size_t na = axes.size();
  if (policy == "stretch") {
    for (size_t k = 0; k < na; ++k) {
      ResizeAxisParams& p = s->axes[static_cast<size_t>(axes[k])];
      p.out = sizes[k];
      p.scale = p.in > 0 ? static_cast<double>(p.out) / static_cast<double>(p.in) : 1.0;
    }
    return Status::Ok();
  }
  // One scale for all resized axes: the largest that fits (not_larger) or the smallest that
  // covers (not_smaller) the requested sizes.
  double sc = policy == "not_larger" ? INFINITY : 0.0;
  for (size_t k = 0; k < na; ++k) {
    const int64_t in = s->axes[static_cast<size_t>(axes[k])].in;
    if (in == 0) continue;
    const double r = static_cast<double>(sizes[k]) / static_cast<double>(in);
    sc = policy == "not_larger" ? std::min(sc, r) : std::max(sc, r);
  }
  if (!std::isfinite(sc) || sc <= 0) sc = 1.0;
  for (size_t k = 0; k < na; ++k) {
    ResizeAxisParams& p = s->axes[static_cast<size_t>(axes[k])];
    p.scale = sc;
    p.out = static_cast<int64_t>(std::round(sc * static_cast<double>(p.in)));
  }
  return Status::Ok();
}

Expected<ResizeSetup> ParseResize(const KernelContext& ctx, const Tensor& x, bool upsample) {
  const int rank = x.rank();
  const bool legacy = upsample || ctx.opset() < 11;
  ResizeSetup s;
  VT_ASSIGN_OR_RETURN(const ResizeAxisParams common,
                      ReadResizeAttributes(ctx, legacy, &s.extrapolation));
  s.axes.assign(static_cast<size_t>(rank), common);
  for (int d = 0; d < rank; ++d) {
    s.axes[static_cast<size_t>(d)].in = x.dim(d);
    s.axes[static_cast<size_t>(d)].out = x.dim(d);
  }
  VT_ASSIGN_OR_RETURN(ResizeTargets t, ReadTargets(ctx, upsample, legacy));
  std::vector<int64_t> axes;
  if (legacy) {
    axes.resize(static_cast<size_t>(rank));
    std::iota(axes.begin(), axes.end(), 0);
  } else {
    VT_ASSIGN_OR_RETURN(axes, ResizeAxesList(ctx, rank));
  }
  const size_t na = axes.size();
  if ((t.have_scales && t.scales.size() != na) || (!t.have_scales && t.sizes.size() != na))
    return ctx.Error("scales/sizes must have " + std::to_string(na) + " entries");
  if (!legacy && common.coord == CoordMode::kTfCropAndResize) {
    VT_RETURN_IF_ERROR(ReadRoi(ctx, axes, &s));
  }
  if (t.have_scales) {
    VT_RETURN_IF_ERROR(ApplyScales(ctx, t.scales, axes, upsample, &s));
  } else {
    VT_RETURN_IF_ERROR(ApplySizes(ctx, t.sizes, axes, &s));
  }
  for (const auto& p : s.axes) {
    if (p.in == 0 && p.out > 0) return ctx.Error("cannot resize an empty axis to a non-empty one");
    if (p.out > (int64_t{1} << 32)) return ctx.Error("output size is too large");
  }
  return s;
}

// The output shape and per-axis plans of a parsed Resize.
struct ResizePlans {
  Shape out_shape;
  std::vector<ResizeAxisPlan> axes;
  bool all_identity = true;
};

ResizePlans PlanResize(const ResizeSetup& setup) {
  ResizePlans p;
  for (const ResizeAxisParams& a : setup.axes) {
    p.out_shape.push_back(a.out);
    p.axes.push_back(BuildResizeAxisPlan(a));
    p.all_identity &= p.axes.back().identity;
  }
  return p;
}

// Resizes `x` into `out` (dense, of the plans' output shape). `addend` (f32 `x` only; else
// null): a dense f32 tensor of that shape added to the result, possibly `out`'s own buffer.
Status RunResize(const KernelContext& ctx, const Tensor& x, const ResizeSetup& setup,
                 const ResizePlans& plans, Tensor& out, const float* addend = nullptr) {
  if (out.numel() == 0) return Status::Ok();
  const DType dt = x.dtype();
  const int threads = std::max(ctx.threads(), 1);
  const ResizeMode mode = setup.axes.empty() ? ResizeMode::kNearest : setup.axes[0].mode;
  if (dt == DType::kFloat32 && (addend != nullptr || mode != ResizeMode::kNearest)) {
    if (mode == ResizeMode::kNearest)
      ResizeNearest<float>(x.data<float>(), x.shape(), plans.axes, setup.extrapolation,
                           out.mutable_data<float>(), threads, addend);
    else
      ResizeFiltered<float>(x.data<float>(), x.shape(), plans.axes, setup.extrapolation,
                            out.mutable_data<float>(), threads, addend);
    return Status::Ok();
  }
  if (mode == ResizeMode::kNearest) {
    Status st = DispatchBySize(dt, [&](auto tag) -> Status {
      using T = decltype(tag);
      T extrap{};
      if constexpr (!std::is_same_v<T, std::string>) {
        if (dt != DType::kComplex64 && dt != DType::kComplex128)
          (void)StoreDouble(dt, &extrap, setup.extrapolation);
      }
      ResizeNearest<T>(x.data<T>(), x.shape(), plans.axes, extrap, out.mutable_data<T>(), threads);
      return Status::Ok();
    });
    if (!st.ok()) return ctx.Annotate(std::move(st));
    return Status::Ok();
  }
  if (dt == DType::kString || dt == DType::kBool || dt == DType::kComplex64 ||
      dt == DType::kComplex128)
    return ctx.Unsupported(std::string("linear/cubic resize of ") + DTypeName(dt));
  if (dt == DType::kFloat64) {
    ResizeFiltered<double>(x.data<double>(), x.shape(), plans.axes, setup.extrapolation,
                           out.mutable_data<double>(), threads);
    return Status::Ok();
  }
  // Other dtypes: compute in float, convert back (integers rounded and saturated).
  const std::vector<float> xf = TensorToFloats(x);
  std::vector<float> of(static_cast<size_t>(out.numel()));
  ResizeFiltered<float>(xf.data(), x.shape(), plans.axes, setup.extrapolation, of.data(), threads);
  FloatsToTensor(of.data(), out);
  return Status::Ok();
}

// Output 0 = Add(r, y) by the Add kernel of the node's opset, so broadcasting, the element
// type rule and the errors are the Add's.
Status AddAsWritten(KernelContext& ctx, const Tensor& r, const Value& y) {
  const KernelFactory* f = KernelRegistry::Global().Find("", "Add", ctx.opset());
  if (f == nullptr) return ctx.Unsupported("no Add kernel for the fused Add");
  Node add;
  add.name = ctx.node().name;
  add.op_type = "Add";
  add.opset = ctx.opset();
  add.inputs = {"resized", ctx.node().inputs.back()};
  add.outputs = {ctx.node().outputs[0]};
  const Graph none;
  VT_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, (*f)(KernelInit{add, none}));
  const Value rv(r);
  std::vector<Value> outs(1);
  KernelContext add_ctx(add, {&rv, &y}, &outs, nullptr, ctx.threads());
  VT_RETURN_IF_ERROR(kernel->Compute(add_ctx));
  ctx.SetOutput(0, std::move(outs[0]));
  return Status::Ok();
}

// The fused Add of graph/fused_attributes.h kResizeAddAttr: the last input is added to the
// result. An f32 addend of exactly the output's shape is added row by row as the rows are made,
// over its own buffer when it dies here; anything else (a broadcast, another element type)
// resizes into a temporary and runs the Add as written.
Status ResizeAdd(KernelContext& ctx, const Tensor& x, const ResizeSetup& setup,
                 const ResizePlans& plans) {
  const size_t ai = ctx.num_inputs() - 1;
  if (ctx.num_inputs() < 2 || !ctx.has_input(ai))
    return ctx.Error("the fused Add's addend (last input) is missing");
  const Value& yv = *ctx.input_value(ai);
  if (x.dtype() == DType::kFloat32 && yv.is_tensor() && yv.tensor().dtype() == DType::kFloat32 &&
      yv.tensor().shape() == plans.out_shape) {
    // The output first: a handle to the addend held here would keep it off the addend's buffer.
    Tensor out = ctx.AllocOutputOver(0, DType::kFloat32, plans.out_shape, {ai});
    const Tensor y = ctx.input(ai).Contiguous();
    if (!plans.all_identity) return RunResize(ctx, x, setup, plans, out, y.data<float>());
    resize_detail::AddRow(x.data<float>(), y.data<float>(), out.mutable_data<float>(), out.numel());
    return Status::Ok();
  }
  Tensor r = x;
  if (!plans.all_identity) {
    r = Tensor::Empty(x.dtype(), plans.out_shape);
    VT_RETURN_IF_ERROR(RunResize(ctx, x, setup, plans, r));
  }
  return AddAsWritten(ctx, r, yv);
}

Status ResizeImpl(KernelContext& ctx, bool upsample) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = x0.Contiguous();
  VT_ASSIGN_OR_RETURN(ResizeSetup setup, ParseResize(ctx, x, upsample));
  const ResizePlans plans = PlanResize(setup);
  VT_RETURN_IF_ERROR(CheckOutputShape(ctx, plans.out_shape));
  if (ctx.node().GetInt(kResizeAddAttr, 0) != 0) return ResizeAdd(ctx, x, setup, plans);
  if (plans.all_identity) {
    ctx.SetOutput(0, x);
    return Status::Ok();
  }
  Tensor out = ctx.AllocOutput(0, x.dtype(), plans.out_shape);
  return RunResize(ctx, x, setup, plans, out);
}

Status ResizeCompute(KernelContext& ctx) { return ResizeImpl(ctx, false); }
Status UpsampleCompute(KernelContext& ctx) { return ResizeImpl(ctx, true); }

VT_REGISTER_OP("", "Resize", 10, kMaxOpset, ResizeCompute);
VT_REGISTER_OP("", "Upsample", 7, kMaxOpset, UpsampleCompute);

}  // namespace
}  // namespace vt::ops
