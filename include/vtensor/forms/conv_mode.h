// How Conv computes (src/ops/nn/conv.cc), decided here so that the filter's packed form
// (rows/f32_conv_a_panels.cc) and the compute agree.
#pragma once

#include <cstdint>

#include "vtensor/forms/isa.h"
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

// Winograd F(4x4, 3x3) (src/kernels/conv/f32_winograd.h): Conv runs a constant filter `w`
// [M, C, 3, 3] of an ungrouped 2-D convolution with unit strides and dilations (any pads) on a
// transform of it made at session creation, when M and C >= kConvWinogradMinChannels (with
// fewer, the transforms, whose cost grows with C + M, take too large a share) and M * C <=
// kConvWinogradMaxFilterPairs (bounds the transform's cost at creation: it is not a layout, so
// nothing is cached for it; docs/weight-forms.md). No packed form is offered for such a
// filter. Only on AVX-512 and AVX2 (`isa`: the session's level), the levels with vectorised
// transform rows; on baseline x86-64 the GEMM modes keep these filters.
// VTENSOR_CONV_WINOGRAD=off in the environment turns the mode off (read once).
inline constexpr int64_t kConvWinogradMinChannels = 16;
inline constexpr int64_t kConvWinogradMaxFilterPairs = int64_t{128} * 128;
bool ConvWinogradApplies(const Shape& w, int64_t group, bool unit_strides_dilations, IsaLevel isa);

}  // namespace vt
