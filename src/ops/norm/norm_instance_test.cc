// InstanceNormalization and GroupNormalization against direct double formulas.
#include <gtest/gtest.h>

#include "ops/norm/norm_test_util.h"

namespace vt::ops {
namespace {

using namespace normtest;

TEST(InstanceAndGroupNorm, MatchPerGroupMoments) {
  const int64_t n = 2, c = 4, s = 7;
  const auto x = Random(static_cast<size_t>(n * c * s), 2);
  const std::vector<double> scale{1, 2, 3, 4}, bias{0.5, 0, -1, 2};
  std::vector<double> want(x.size());
  for (int64_t nc = 0; nc < n * c; ++nc) {
    double m, v;
    Moments(s, [&](int64_t k) { return x[static_cast<size_t>(nc * s + k)]; }, &m, &v);
    for (int64_t k = 0; k < s; ++k) {
      const size_t i = static_cast<size_t>(nc * s + k);
      want[i] = (x[i] - m) / std::sqrt(v + 1e-5) * scale[nc % c] + bias[nc % c];
    }
  }
  Tensor y = RunOne(OpCall{"InstanceNormalization", 6, {},
                           {F32({n, c, s}, x), F32({4}, scale), F32({4}, bias)}});
  ExpectClose(Values(y), want, 1e-5, "instance");

  // Groups of 2 channels; opset 21 scale per channel, opset 18 per group.
  for (int64_t g = 0; g < n * 2; ++g) {
    double m, v;
    Moments(2 * s, [&](int64_t k) { return x[static_cast<size_t>(g * 2 * s + k)]; }, &m, &v);
    for (int64_t k = 0; k < 2 * s; ++k) {
      const size_t i = static_cast<size_t>(g * 2 * s + k);
      const int64_t ch = (g % 2) * 2 + k / s;
      want[i] = (x[i] - m) / std::sqrt(v + 1e-5) * scale[ch] + bias[ch];
    }
  }
  Tensor yg = RunOne(OpCall{"GroupNormalization", 21, {AttrInt("num_groups", 2)},
                            {F32({n, c, s}, x), F32({4}, scale), F32({4}, bias)}});
  ExpectClose(Values(yg), want, 1e-5, "group");
  EXPECT_FALSE((OpCall{"GroupNormalization", 21, {AttrInt("num_groups", 3)},
                       {F32({n, c, s}, x), F32({4}, scale), F32({4}, bias)}}.Run().ok()));
  EXPECT_FALSE((OpCall{"GroupNormalization", 18, {AttrInt("num_groups", 2)},
                       {F32({n, c, s}, x), F32({4}, scale), F32({4}, bias)}}.Run().ok()));
}

}  // namespace
}  // namespace vt::ops
