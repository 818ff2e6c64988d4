// Resize sampling plan (ONNX Operators.md "Resize" opsets 10-19, "Upsample" 7/9): for one
// axis, which input positions each output position reads and with what weights. Resize is
// separable, so an N-D resize is a sequence of 1-D plans applied axis by axis.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtensor/base/status.h"

namespace vt::ops {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class CoordMode {
  kHalfPixel,
  kHalfPixelSymmetric,  // opset 19
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNN,  // opset 11-12
  kTfCropAndResize,
};
enum class NearestMode {
  kRoundPreferFloor,
  kRoundPreferCeil,
  kFloor,
  kCeil,
  kLegacy,  // Upsample / Resize-10: truncate when upsampling, ceil when downsampling
};

Expected<ResizeMode> ParseResizeMode(const std::string& s);
Expected<CoordMode> ParseCoordMode(const std::string& s);
Expected<NearestMode> ParseNearestMode(const std::string& s);

struct ResizeAxisParams {
  int64_t in = 0;       // input length
  int64_t out = 0;      // output length
  double scale = 1.0;   // out / in as given by `scales` (or derived from `sizes`)
  // in * scale before flooring (== out when `sizes` was given). align_corners and
  // pytorch_half_pixel use it as "length_resized", as the ONNX reference implementation does.
  double out_length = 0.0;
  double roi_start = 0.0, roi_end = 1.0;  // tf_crop_and_resize only (normalised)
  ResizeMode mode = ResizeMode::kNearest;
  CoordMode coord = CoordMode::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  float cubic_a = -0.75f;
  bool exclude_outside = false;
  bool antialias = false;  // linear/cubic: widen the filter by 1/scale when downscaling
};

// Output position j reads input positions idx[j*taps .. j*taps+taps) (already clamped to
// [0, in-1]) with weights w[...]; extrapolate[j] means "write the extrapolation value".
struct ResizeAxisPlan {
  int64_t in = 0, out = 0;
  int taps = 1;
  std::vector<int64_t> idx;
  std::vector<float> w;
  std::vector<uint8_t> extrapolate;
  bool any_extrapolate = false;
  // True when the plan copies input j to output j for every j (the axis can be skipped).
  bool identity = false;
};

// Maps output coordinate `x` to the input coordinate (before rounding / clamping).
double ResizeSourceCoord(const ResizeAxisParams& p, int64_t x);

// Builds the plan of one axis. Preconditions: in >= 1 or out == 0; scale > 0.
ResizeAxisPlan BuildResizeAxisPlan(const ResizeAxisParams& p);

}  // namespace vt::ops
