// How Conv computes (src/ops/nn/conv.cc), decided here so that the filter's packed form
// (rows/f32_conv_a_panels.cc) and the compute agree.
#pragma once

#include <cstdint>

#include "vtensor/layout/layout.h"

namespace vt {

enum class ConvWeightMode { kDepthwise, kPointwise, kTapMajor, kPacked, kIm2colNd };

// Below this many input channels per group, tap-major K blocks are too short.
inline constexpr int64_t kConvTapMajorMinChannels = 16;

// Mode of a convolution with filter `w` [M, C/group, k...] (rank >= 3, group divides M) over an
// input of rank w.size(); `unit_strides_pads`: every stride is 1 and every pad 0.
//   kDepthwise  one input and one output channel per group, 1-D or 2-D: read in place
//   kPointwise  all kernel dims 1 with unit strides and no pads: a plain GEMM
//   kIm2colNd   3-D and higher spatial ranks
//   kTapMajor   C/group >= kConvTapMajorMinChannels: K ordered (taps, channels)
//   kPacked     otherwise: K ordered (channels, taps)
ConvWeightMode ChooseConvWeightMode(const Shape& w, int64_t group, bool unit_strides_pads);

}  // namespace vt
