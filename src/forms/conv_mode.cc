#include "vtensor/forms/conv_mode.h"

#include <cstdlib>
#include <string_view>

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

bool ConvWinogradApplies(const Shape& w, int64_t group, bool unit_strides_dilations,
                         IsaLevel isa) {
  static const bool enabled = [] {
    const char* v = std::getenv("VTENSOR_CONV_WINOGRAD");
    return v == nullptr || std::string_view(v) != "off";
  }();
  if (!enabled || isa == IsaLevel::kBaseline || !unit_strides_dilations || group != 1) return false;
  if (w.size() != 4 || w[2] != 3 || w[3] != 3) return false;
  return w[0] >= kConvWinogradMinChannels && w[1] >= kConvWinogradMinChannels &&
         w[0] * w[1] <= kConvWinogradMaxFilterPairs;
}

}  // namespace vt
