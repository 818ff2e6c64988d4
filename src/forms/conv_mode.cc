#include "vtensor/forms/conv_mode.h"

namespace vt {

ConvWeightMode ChooseConvWeightMode(const Shape& w, int64_t group, bool unit_strides_pads) {
  const int rank = static_cast<int>(w.size());
  const int64_t mg = w[0] / group;
  if (rank <= 4 && w[1] == 1 && mg == 1) return ConvWeightMode::kDepthwise;
  bool one = true;
  for (size_t i = 2; i < w.size(); ++i) one = one && w[i] == 1;
  if (one && unit_strides_pads) return ConvWeightMode::kPointwise;
  if (rank > 4) return ConvWeightMode::kIm2colNd;
  return w[1] >= kConvTapMajorMinChannels ? ConvWeightMode::kTapMajor : ConvWeightMode::kPacked;
}

}  // namespace vt
