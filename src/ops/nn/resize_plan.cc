#include "ops/nn/resize_plan.h"

#include <algorithm>
#include <cmath>

namespace vt::ops {

Expected<ResizeMode> ParseResizeMode(const std::string& s) {
  if (s == "nearest") return ResizeMode::kNearest;
  if (s == "linear" || s == "bilinear" || s == "trilinear") return ResizeMode::kLinear;
  if (s == "cubic" || s == "bicubic") return ResizeMode::kCubic;
  return InvalidArgument("unknown mode '" + s + "'");
}

Expected<CoordMode> ParseCoordMode(const std::string& s) {
  if (s == "half_pixel") return CoordMode::kHalfPixel;
  if (s == "half_pixel_symmetric") return CoordMode::kHalfPixelSymmetric;
  if (s == "pytorch_half_pixel") return CoordMode::kPytorchHalfPixel;
  if (s == "align_corners") return CoordMode::kAlignCorners;
  if (s == "asymmetric") return CoordMode::kAsymmetric;
  if (s == "tf_half_pixel_for_nn") return CoordMode::kTfHalfPixelForNN;
  if (s == "tf_crop_and_resize") return CoordMode::kTfCropAndResize;
  return InvalidArgument("unknown coordinate_transformation_mode '" + s + "'");
}

Expected<NearestMode> ParseNearestMode(const std::string& s) {
  if (s == "round_prefer_floor") return NearestMode::kRoundPreferFloor;
  if (s == "round_prefer_ceil") return NearestMode::kRoundPreferCeil;
  if (s == "floor") return NearestMode::kFloor;
  if (s == "ceil") return NearestMode::kCeil;
  return InvalidArgument("unknown nearest_mode '" + s + "'");
}

double ResizeSourceCoord(const ResizeAxisParams& p, int64_t xi) {
  const double x = static_cast<double>(xi);
  const double in = static_cast<double>(p.in);
  const double out = p.out_length > 0 ? p.out_length : static_cast<double>(p.out);
  switch (p.coord) {
    case CoordMode::kHalfPixel: return (x + 0.5) / p.scale - 0.5;
    case CoordMode::kHalfPixelSymmetric: {
      // Keeps the sampling grid centred when floor(in * scale) != in * scale.
      const double adjustment = static_cast<double>(p.out) / (p.scale * in);
      const double center = in / 2;
      const double offset = center * (1 - adjustment);
      return offset + (x + 0.5) / p.scale - 0.5;
    }
    case CoordMode::kPytorchHalfPixel: return out != 1 ? (x + 0.5) / p.scale - 0.5 : 0.0;
    case CoordMode::kAlignCorners: return out != 1 ? x * (in - 1) / (out - 1) : 0.0;
    case CoordMode::kAsymmetric: return x / p.scale;
    case CoordMode::kTfHalfPixelForNN: return (x + 0.5) / p.scale;
    case CoordMode::kTfCropAndResize: {
      const double out_int = static_cast<double>(p.out);
      return p.out > 1 ? p.roi_start * (in - 1) +
                             x * (p.roi_end - p.roi_start) * (in - 1) / (out_int - 1)
                       : 0.5 * (p.roi_start + p.roi_end) * (in - 1);
    }
  }
  return x;
}

namespace {

int64_t NearestIndex(double x, NearestMode m, bool downsample) {
  switch (m) {
    case NearestMode::kRoundPreferFloor: return static_cast<int64_t>(std::ceil(x - 0.5));
    case NearestMode::kRoundPreferCeil: return static_cast<int64_t>(std::floor(x + 0.5));
    case NearestMode::kFloor: return static_cast<int64_t>(std::floor(x));
    case NearestMode::kCeil: return static_cast<int64_t>(std::ceil(x));
    case NearestMode::kLegacy:
      return downsample ? static_cast<int64_t>(std::ceil(x)) : static_cast<int64_t>(x);
  }
  return 0;
}

// Keys cubic convolution kernel with parameter a, at distance |d|.
double CubicWeight(double d, double a) {
  d = std::fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return (((d - 5) * d + 8) * d - 4) * a;
  return 0.0;
}

}  // namespace

ResizeAxisPlan BuildResizeAxisPlan(const ResizeAxisParams& p) {
  ResizeAxisPlan plan;
  plan.in = p.in;
  plan.out = p.out;
  if (p.out <= 0 || p.in <= 0) return plan;
  const bool tf_crop = p.coord == CoordMode::kTfCropAndResize;
  // Filter footprint: taps relative to x0 = ceil(x) - 1, with ratio = x - x0 in (0, 1]; this
  // picks the same neighbours as the spec's "closest points, ties to the lower index".
  int64_t first = 0, ntaps = 1;
  double support_scale = 1.0;  // < 1 widens linear/cubic filters (antialias)
  if (p.mode == ResizeMode::kLinear || p.mode == ResizeMode::kCubic) {
    if (p.antialias && p.scale < 1.0) support_scale = p.scale;
    // A filter wider than the whole input reads every pixel anyway; bounding it keeps the tap
    // count finite for degenerate scales (tf_crop_and_resize can pair a tiny scale with a
    // large roi).
    support_scale = std::max(support_scale, 1.0 / static_cast<double>(p.in + 2));
    const double radius = p.mode == ResizeMode::kLinear ? 1.0 : 2.0;
    first = static_cast<int64_t>(std::floor(-radius / support_scale)) + 1;
    ntaps = 2 - 2 * first;
  }
  plan.taps = static_cast<int>(ntaps);
  plan.idx.resize(static_cast<size_t>(p.out * ntaps));
  plan.w.resize(static_cast<size_t>(p.out * ntaps));
  plan.extrapolate.assign(static_cast<size_t>(p.out), 0);
  const bool downsample = p.scale < 1.0;
  std::vector<double> coeff(static_cast<size_t>(ntaps));
  for (int64_t j = 0; j < p.out; ++j) {
    // NaN cannot occur (finite scale/roi); clamping keeps integer casts defined.
    const double in_d = static_cast<double>(p.in);
    const double x = std::min(std::max(ResizeSourceCoord(p, j), -4.0 * in_d - 8), 5.0 * in_d + 8);
    int64_t* idx = &plan.idx[static_cast<size_t>(j * ntaps)];
    float* w = &plan.w[static_cast<size_t>(j * ntaps)];
    if (tf_crop && (x < 0 || x > static_cast<double>(p.in - 1))) {
      plan.extrapolate[static_cast<size_t>(j)] = 1;
      plan.any_extrapolate = true;
      for (int64_t t = 0; t < ntaps; ++t) {
        idx[t] = 0;
        w[t] = 0.0f;
      }
      continue;
    }
    if (p.mode == ResizeMode::kNearest) {
      int64_t i = NearestIndex(x, p.nearest, downsample);
      idx[0] = std::min(std::max<int64_t>(i, 0), p.in - 1);
      w[0] = 1.0f;
      continue;
    }
    const double x0 = std::ceil(x) - 1;
    const double ratio = x - x0;
    double sum = 0;
    for (int64_t t = 0; t < ntaps; ++t) {
      const double d = (static_cast<double>(first + t) - ratio) * support_scale;
      double c;
      if (p.mode == ResizeMode::kLinear) c = std::max(0.0, 1.0 - std::fabs(d));
      else c = CubicWeight(d, p.cubic_a);
      const int64_t i = static_cast<int64_t>(x0) + first + t;
      if (p.exclude_outside && (i < 0 || i >= p.in)) c = 0;
      coeff[static_cast<size_t>(t)] = c;
      sum += c;
    }
    // Plain linear/cubic weights already sum to 1; renormalise only what the spec does.
    const bool normalise = (support_scale < 1.0 || p.exclude_outside) && sum != 0;
    for (int64_t t = 0; t < ntaps; ++t) {
      const int64_t i = static_cast<int64_t>(x0) + first + t;
      idx[t] = std::min(std::max<int64_t>(i, 0), p.in - 1);
      w[t] = static_cast<float>(normalise ? coeff[static_cast<size_t>(t)] / sum
                                          : coeff[static_cast<size_t>(t)]);
    }
  }
  plan.identity = p.in == p.out && !plan.any_extrapolate;
  for (int64_t j = 0; j < p.out && plan.identity; ++j)
    for (int64_t t = 0; t < ntaps; ++t) {
      const float wt = plan.w[static_cast<size_t>(j * ntaps + t)];
      const int64_t i = plan.idx[static_cast<size_t>(j * ntaps + t)];
      if (!(wt == 0.0f || (wt == 1.0f && i == j))) {
        plan.identity = false;
        break;
      }
    }
  return plan;
}

}  // namespace vt::ops
