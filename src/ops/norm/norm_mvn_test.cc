// MeanVarianceNormalization against direct double formulas.
#include <gtest/gtest.h>

#include "ops/norm/norm_test_util.h"

namespace vt::ops {
namespace {

using namespace normtest;

TEST(MeanVarianceNorm, DefaultAxesAndCustomAxes) {
  const Shape shape{2, 3, 2, 2};
  const auto x = Random(24, 7);
  Tensor y = RunOne(OpCall{"MeanVarianceNormalization", 13, {}, {F32(shape, x)}});
  std::vector<double> want(x.size());
  for (int64_t ch = 0; ch < 3; ++ch) {
    auto at = [&](int64_t k) { return x[static_cast<size_t>(((k / 4) * 3 + ch) * 4 + k % 4)]; };
    double m, v;
    Moments(8, at, &m, &v);
    for (int64_t k = 0; k < 8; ++k)
      want[static_cast<size_t>(((k / 4) * 3 + ch) * 4 + k % 4)] = (at(k) - m) / (std::sqrt(v) + 1e-9);
  }
  ExpectClose(Values(y), want, 1e-5, "mvn");
  Tensor y2 = RunOne(OpCall{"MeanVarianceNormalization", 13, {AttrInts("axes", {-1})}, {F32(shape, x)}});
  for (int64_t r = 0; r < 12; ++r) {
    double m, v;
    Moments(2, [&](int64_t k) { return x[static_cast<size_t>(r * 2 + k)]; }, &m, &v);
    for (int64_t k = 0; k < 2; ++k) want[r * 2 + k] = (x[r * 2 + k] - m) / (std::sqrt(v) + 1e-9);
  }
  ExpectClose(Values(y2), want, 1e-5, "mvn last axis");
  EXPECT_FALSE((OpCall{"MeanVarianceNormalization", 13, {AttrInts("axes", {4})}, {F32(shape, x)}}.Run().ok()));
}

}  // namespace
}  // namespace vt::ops
