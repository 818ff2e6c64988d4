// GridSample (ONNX Operators.md "GridSample": opset 16 4-D bilinear/nearest/bicubic; opset 20
// names linear/cubic and N-D inputs). X [N, C, D1..Dk], grid [N, O1..Ok, k] holding
// normalised (x, y, ...) coordinates — x indexes the last dim. Padding modes: zeros, border
// (coordinates clamped) and reflection (coordinates mirrored at the borders until in range).
// Nearest rounds half to even. Bicubic uses A = -0.75 on a 4x4 neighbourhood (k = 2 only).
#include <array>
#include <cmath>

#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

enum class GsMode { kNearest, kLinear, kCubic };
enum class GsPad { kZeros, kBorder, kReflection };

constexpr int kMaxSpatial = 3;

// Mirrors x into [lo, hi] by repeated reflection at the nearer border.
double Reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const double dx = lo - x;
    const double n = std::floor(dx / range);
    const double r = dx - n * range;
    return std::fmod(n, 2.0) == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double dx = x - hi;
    const double n = std::floor(dx / range);
    const double r = dx - n * range;
    return std::fmod(n, 2.0) == 0 ? hi - r : lo + r;
  }
  return x;
}

struct GsAxis {
  int64_t size;
  double lo, hi;  // reflection borders
};

// Index along one axis for the pixel fetch, or -1 for "outside, contributes zero".
inline int64_t PixelIndex(int64_t i, const GsAxis& a, GsPad pad) {
  if (i >= 0 && i < a.size) return i;
  switch (pad) {
    case GsPad::kZeros: return -1;
    case GsPad::kBorder: return i < 0 ? 0 : a.size - 1;
    case GsPad::kReflection: {
      int64_t r = static_cast<int64_t>(Reflect(static_cast<double>(i), a.lo, a.hi));
      return std::min(std::max<int64_t>(r, 0), a.size - 1);
    }
  }
  return -1;
}

inline void CubicCoeffs(double t, double c[4]) {
  const double a = -0.75;
  auto w = [a](double d) {
    d = std::fabs(d);
    if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
    if (d < 2) return (((d - 5) * d + 8) * d - 4) * a;
    return 0.0;
  };
  c[0] = w(t + 1);
  c[1] = w(t);
  c[2] = w(1 - t);
  c[3] = w(2 - t);
}

// Attributes and the sampled geometry of one call.
struct GsSetup {
  GsMode mode = GsMode::kLinear;
  GsPad pad = GsPad::kZeros;
  bool align = false;
  int k = 0;  // spatial axes
  std::array<GsAxis, kMaxSpatial> axes{};
  std::array<int64_t, kMaxSpatial> in_strides{};  // row-major over the input's spatial axes
  int64_t in_plane = 1;                             // spatial elements of one input channel
};

// Errors: InvalidArgument naming the node for an unknown mode or padding_mode; Unimplemented
// for cubic mode on other than 4-D input.
Status ReadModes(const KernelContext& ctx, GsSetup* s) {
  const std::string mode = ctx.node().GetString("mode", ctx.opset() >= 20 ? "linear" : "bilinear");
  if (mode == "bilinear" || mode == "linear") s->mode = GsMode::kLinear;
  else if (mode == "nearest") s->mode = GsMode::kNearest;
  else if (mode == "bicubic" || mode == "cubic") s->mode = GsMode::kCubic;
  else return ctx.Error("unknown mode '" + mode + "'");
  if (s->mode == GsMode::kCubic && s->k != 2) return ctx.Unsupported("cubic mode needs 4-D input");
  const std::string pad = ctx.node().GetString("padding_mode", "zeros");
  if (pad == "zeros") s->pad = GsPad::kZeros;
  else if (pad == "border") s->pad = GsPad::kBorder;
  else if (pad == "reflection") s->pad = GsPad::kReflection;
  else return ctx.Error("unknown padding_mode '" + pad + "'");
  s->align = ctx.node().GetInt("align_corners", 0) != 0;
  return Status::Ok();
}

// Errors: InvalidArgument naming the node for mismatched X / grid shapes or a non-float grid;
// Unimplemented for string, bool and complex X.
Expected<GsSetup> ReadSetup(const KernelContext& ctx, const Tensor& x, const Tensor& grid) {
  const int r = x.rank();
  GsSetup s;
  s.k = r - 2;
  if (r < 3 || s.k > kMaxSpatial)
    return ctx.Error("X must have rank 3 to " + std::to_string(kMaxSpatial + 2) + ", got " +
                     ShapeToString(x.shape()));
  if (ctx.opset() < 20 && r != 4) return ctx.Error("X must be 4-D before opset 20");
  if (grid.rank() != r || grid.dim(0) != x.dim(0) || grid.dim(r - 1) != s.k)
    return ctx.Error("grid shape " + ShapeToString(grid.shape()) + " does not match X shape " +
                     ShapeToString(x.shape()));
  if (!IsFloatDType(grid.dtype())) return ctx.Error("grid must be a float tensor");
  const DType dt = x.dtype();
  if (dt == DType::kString || dt == DType::kBool || dt == DType::kComplex64 ||
      dt == DType::kComplex128)
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt));
  VT_RETURN_IF_ERROR(ReadModes(ctx, &s));
  for (int d = 0; d < s.k; ++d) {
    const int64_t size = x.dim(d + 2);
    s.axes[static_cast<size_t>(d)] = {size, s.align ? 0.0 : -0.5,
                                      s.align ? static_cast<double>(size - 1) : size - 0.5};
    s.in_plane *= size;
  }
  int64_t stride = 1;
  for (int d = s.k - 1; d >= 0; --d) {
    s.in_strides[static_cast<size_t>(d)] = stride;
    stride *= s.axes[static_cast<size_t>(d)].size;
  }
  return s;
}

// Input coordinates (per spatial axis, outermost first) of one grid point; false when one is
// not finite (the output is 0 there).
bool SampleCoordinates(const GsSetup& s, const float* gp, std::array<double, kMaxSpatial>* coord) {
  for (int d = 0; d < s.k; ++d) {
    // grid[..., 0] is x (last dim), grid[..., 1] is y, ...
    const double g = gp[s.k - 1 - d];
    const GsAxis& a = s.axes[static_cast<size_t>(d)];
    const double size = static_cast<double>(a.size);
    double v = s.align ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2;
    if (s.pad == GsPad::kBorder) v = std::min(std::max(v, 0.0), size - 1);
    else if (s.pad == GsPad::kReflection) v = Reflect(v, a.lo, a.hi);
    // Far-outside points only ever read padding; bound them so integer casts are defined.
    v = std::min(std::max(v, -4.0 - size), 2.0 * size + 4.0);
    (*coord)[static_cast<size_t>(d)] = v;
  }
  for (int d = 0; d < s.k; ++d)
    if (!std::isfinite((*coord)[static_cast<size_t>(d)])) return false;
  return true;
}

// The input taps of one sample: (flat input offset or -1 for padding, weight).
using GsTaps = std::array<std::pair<int64_t, double>, 16>;

int NearestTaps(const GsSetup& s, const std::array<double, kMaxSpatial>& coord, GsTaps* taps) {
  int64_t off = 0;
  for (int d = 0; d < s.k; ++d) {
    const int64_t i = PixelIndex(static_cast<int64_t>(std::nearbyint(coord[static_cast<size_t>(d)])),
                                 s.axes[static_cast<size_t>(d)], s.pad);
    if (i < 0) {
      off = -1;
      break;
    }
    off += i * s.in_strides[static_cast<size_t>(d)];
  }
  (*taps)[0] = {off, 1.0};
  return 1;
}

int LinearTaps(const GsSetup& s, const std::array<double, kMaxSpatial>& coord, GsTaps* taps) {
  int n = 0;
  for (int corner = 0; corner < (1 << s.k); ++corner) {
    int64_t off = 0;
    double w = 1.0;
    for (int d = 0; d < s.k; ++d) {
      const double v = coord[static_cast<size_t>(d)];
      const double f = std::floor(v);
      const bool hi = (corner >> d) & 1;
      w *= hi ? v - f : 1 - (v - f);
      const int64_t i =
          PixelIndex(static_cast<int64_t>(f) + (hi ? 1 : 0), s.axes[static_cast<size_t>(d)], s.pad);
      if (i < 0 || off < 0) off = -1;
      else off += i * s.in_strides[static_cast<size_t>(d)];
    }
    (*taps)[static_cast<size_t>(n++)] = {off, w};
  }
  return n;
}

int CubicTaps(const GsSetup& s, const std::array<double, kMaxSpatial>& coord, GsTaps* taps) {
  double cy[4], cx[4];
  const double fy = std::floor(coord[0]), fx = std::floor(coord[1]);
  CubicCoeffs(coord[0] - fy, cy);
  CubicCoeffs(coord[1] - fx, cx);
  int n = 0;
  for (int i = 0; i < 4; ++i) {
    const int64_t yi = PixelIndex(static_cast<int64_t>(fy) - 1 + i, s.axes[0], s.pad);
    for (int j = 0; j < 4; ++j) {
      const int64_t xi = PixelIndex(static_cast<int64_t>(fx) - 1 + j, s.axes[1], s.pad);
      (*taps)[static_cast<size_t>(n++)] = {yi < 0 || xi < 0 ? -1 : yi * s.in_strides[0] + xi,
                                           cy[i] * cx[j]};
    }
  }
  return n;
}

Status GridSampleCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor g0, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(GsSetup s, ReadSetup(ctx, x0, g0));
  const int64_t n = x0.dim(0), c = x0.dim(1);
  Shape out_shape = {n, c};
  int64_t out_plane = 1;
  for (int d = 0; d < s.k; ++d) {
    out_shape.push_back(g0.dim(d + 1));
    out_plane *= g0.dim(d + 1);
  }
  Tensor out = ctx.AllocOutput(0, x0.dtype(), out_shape);
  if (out.numel() == 0) return Status::Ok();
  if (s.in_plane == 0) return ctx.Error("cannot sample from an empty input");

  const std::vector<float> xs = TensorToFloats(x0);
  const std::vector<float> gs = TensorToFloats(g0);
  std::vector<float> ys(static_cast<size_t>(out.numel()));
  for (int64_t b = 0; b < n; ++b) {
    const float* xb = xs.data() + b * c * s.in_plane;
    float* yb = ys.data() + b * c * out_plane;
    for (int64_t p = 0; p < out_plane; ++p) {
      std::array<double, kMaxSpatial> coord{};
      if (!SampleCoordinates(s, gs.data() + (b * out_plane + p) * s.k, &coord)) {
        for (int64_t ch = 0; ch < c; ++ch) yb[ch * out_plane + p] = 0.0f;
        continue;
      }
      GsTaps taps;
      const int ntaps = s.mode == GsMode::kNearest ? NearestTaps(s, coord, &taps)
                        : s.mode == GsMode::kLinear ? LinearTaps(s, coord, &taps)
                                                    : CubicTaps(s, coord, &taps);
      for (int64_t ch = 0; ch < c; ++ch) {
        const float* xc = xb + ch * s.in_plane;
        double acc = 0;
        for (int t = 0; t < ntaps; ++t)
          if (taps[static_cast<size_t>(t)].first >= 0)
            acc += taps[static_cast<size_t>(t)].second * xc[taps[static_cast<size_t>(t)].first];
        yb[ch * out_plane + p] = static_cast<float>(acc);
      }
    }
  }
  FloatsToTensor(ys.data(), out);
  return Status::Ok();
}

VT_REGISTER_OP("", "GridSample", 16, kMaxOpset, GridSampleCompute);

}  // namespace
}  // namespace vt::ops
