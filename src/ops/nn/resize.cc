// Resize (opsets 10-19) and Upsample (7-9), ONNX Operators.md: parses scales / sizes / roi
// and attributes per opset into per-axis plans (resize_plan.h) and runs them
// (resize_exec.h). Nearest mode moves elements of any dtype verbatim; linear/cubic compute
// in float (double for float64 inputs; other dtypes are converted, integers rounded).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/nn/resize_exec.h"
#include "ops/nn/resize_plan.h"
#include "ops/common/shape_util.h"

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

Status ResizeImpl(KernelContext& ctx, bool upsample) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = x0.Contiguous();
  VT_ASSIGN_OR_RETURN(ResizeSetup setup, ParseResize(ctx, x, upsample));
  const int rank = x.rank();
  Shape out_shape(static_cast<size_t>(rank));
  std::vector<ResizeAxisPlan> plans(static_cast<size_t>(rank));
  bool all_identity = true;
  for (int d = 0; d < rank; ++d) {
    const ResizeAxisParams& p = setup.axes[static_cast<size_t>(d)];
    out_shape[static_cast<size_t>(d)] = p.out;
    plans[static_cast<size_t>(d)] = BuildResizeAxisPlan(p);
    all_identity &= plans[static_cast<size_t>(d)].identity;
  }
  VT_RETURN_IF_ERROR(CheckOutputShape(ctx, out_shape));
  const DType dt = x.dtype();
  if (all_identity) {
    ctx.SetOutput(0, x);
    return Status::Ok();
  }
  Tensor out = ctx.AllocOutput(0, dt, out_shape);
  if (out.numel() == 0) return Status::Ok();
  const int threads = std::max(ctx.threads(), 1);
  const ResizeMode mode = setup.axes.empty() ? ResizeMode::kNearest : setup.axes[0].mode;

  if (mode == ResizeMode::kNearest) {
    Status st = DispatchBySize(dt, [&](auto tag) -> Status {
      using T = decltype(tag);
      T extrap{};
      if constexpr (!std::is_same_v<T, std::string>) {
        if (dt != DType::kComplex64 && dt != DType::kComplex128)
          (void)StoreDouble(dt, &extrap, setup.extrapolation);
      }
      ResizeNearest<T>(x.data<T>(), x.shape(), plans, extrap, out.mutable_data<T>(), threads);
      return Status::Ok();
    });
    if (!st.ok()) return ctx.Annotate(std::move(st));
    return Status::Ok();
  }
  if (dt == DType::kString || dt == DType::kBool || dt == DType::kComplex64 ||
      dt == DType::kComplex128)
    return ctx.Unsupported(std::string("linear/cubic resize of ") + DTypeName(dt));
  if (dt == DType::kFloat64) {
    ResizeFiltered<double>(x.data<double>(), x.shape(), plans, setup.extrapolation,
                        out.mutable_data<double>(), threads);
    return Status::Ok();
  }
  if (dt == DType::kFloat32) {
    ResizeFiltered<float>(x.data<float>(), x.shape(), plans, setup.extrapolation,
                       out.mutable_data<float>(), threads);
    return Status::Ok();
  }
  // Other dtypes: compute in float, convert back (integers rounded and saturated).
  const std::vector<float> xf = TensorToFloats(x);
  std::vector<float> of(static_cast<size_t>(out.numel()));
  ResizeFiltered<float>(xf.data(), x.shape(), plans, setup.extrapolation, of.data(), threads);
  FloatsToTensor(of.data(), out);
  return Status::Ok();
}

Status ResizeCompute(KernelContext& ctx) { return ResizeImpl(ctx, false); }
Status UpsampleCompute(KernelContext& ctx) { return ResizeImpl(ctx, true); }

VT_REGISTER_OP("", "Resize", 10, kMaxOpset, ResizeCompute);
VT_REGISTER_OP("", "Upsample", 7, kMaxOpset, UpsampleCompute);

}  // namespace
}  // namespace vt::ops
