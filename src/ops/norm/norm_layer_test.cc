// LayerNormalization against direct double formulas.
#include <gtest/gtest.h>

#include "ops/norm/norm_test_util.h"

namespace vt::ops {
namespace {

using namespace normtest;

TEST(LayerNorm, EveryAxisWithStatsAndBroadcastScale) {
  const Shape shape{2, 3, 5};
  const auto x = Random(30, 3);
  for (int64_t axis : {0, 1, 2, -1, -2}) {
    const int64_t a = axis < 0 ? axis + 3 : axis;
    int64_t outer = 1, len = 1;
    Shape norm_shape;
    for (int64_t d = 0; d < 3; ++d) {
      if (d < a) outer *= shape[d];
      else {
        len *= shape[d];
        norm_shape.push_back(shape[d]);
      }
    }
    const auto scale = Random(static_cast<size_t>(len), 4), bias = Random(static_cast<size_t>(len), 5);
    std::vector<double> want(x.size()), means, invs;
    for (int64_t o = 0; o < outer; ++o) {
      double m, v;
      Moments(len, [&](int64_t k) { return x[static_cast<size_t>(o * len + k)]; }, &m, &v);
      means.push_back(m);
      invs.push_back(1 / std::sqrt(v + 1e-5));
      for (int64_t k = 0; k < len; ++k) {
        const size_t i = static_cast<size_t>(o * len + k);
        want[i] = (x[i] - m) * invs.back() * scale[k] + bias[k];
      }
    }
    OpCall c{"LayerNormalization", 17, {AttrInt("axis", axis)},
             {F32(shape, x), F32(norm_shape, scale), F32(norm_shape, bias)}};
    c.num_outputs = 3;
    auto r = c.Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ExpectClose(Values((*r)[0].tensor()), want, 1e-5, "Y axis " + std::to_string(axis));
    ExpectClose(Values((*r)[1].tensor()), means, 1e-5, "Mean");
    ExpectClose(Values((*r)[2].tensor()), invs, 1e-5, "InvStdDev");
    EXPECT_EQ((*r)[1].tensor().rank(), 3);
  }
  // A [5] scale broadcasts over the last axis; no bias.
  Tensor y = RunOne(OpCall{"LayerNormalization", 17, {}, {F32(shape, x), F32({5}, {1, 1, 1, 1, 1})}});
  EXPECT_EQ(y.shape(), shape);
  EXPECT_FALSE((OpCall{"LayerNormalization", 17, {}, {F32(shape, x), F32({4}, {1, 1, 1, 1})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"LayerNormalization", 17, {AttrInt("axis", 3)}, {F32(shape, x), F32({1}, {1})}}.Run().ok()));
}

TEST(LayerNorm, RmsVariants) {
  const auto x = Random(12, 8);
  const std::vector<double> scale{1, 2, 3, 4};
  std::vector<double> want(12), invs;
  for (int o = 0; o < 3; ++o) {
    double ss = 0;
    for (int k = 0; k < 4; ++k) ss += x[o * 4 + k] * x[o * 4 + k];
    invs.push_back(1 / std::sqrt(ss / 4 + 1e-5));
    for (int k = 0; k < 4; ++k) want[o * 4 + k] = x[o * 4 + k] * invs.back() * scale[k];
  }
  ExpectClose(Values(RunOne(OpCall{"RMSNormalization", 23, {}, {F32({3, 4}, x), F32({4}, scale)}})),
              want, 1e-5, "RMSNormalization");
  OpCall c{"SimplifiedLayerNormalization", 1, {}, {F32({3, 4}, x), F32({4}, scale)}};
  c.num_outputs = 2;
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectClose(Values((*r)[0].tensor()), want, 1e-5, "SimplifiedLayerNormalization");
  ExpectClose(Values((*r)[1].tensor()), invs, 1e-5, "inv_std_var");
}

}  // namespace
}  // namespace vt::ops

namespace vt::ops {
namespace {

using namespace normtest;

// RMSNormalization-23: Y has the type of scale (V), not of X (T).
TEST(RmsNormalizationTest, OutputTakesScaleType) {
  const int64_t rows = 7, n = 17;
  std::vector<double> x(rows * n), scale(n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::round(std::sin(0.3 * i) * 256) / 256;
  for (size_t i = 0; i < scale.size(); ++i) scale[i] = 0.5 + i / 16.0;
  std::vector<double> want(x.size());
  for (int64_t o = 0; o < rows; ++o) {
    double ss = 0;
    for (int64_t k = 0; k < n; ++k) ss += x[o * n + k] * x[o * n + k];
    const double inv = 1 / std::sqrt(ss / n + 1e-5);
    for (int64_t k = 0; k < n; ++k) want[o * n + k] = x[o * n + k] * inv * scale[k];
  }
  struct Mix { DType x, scale; double tol; };
  for (const Mix& m : {Mix{DType::kFloat16, DType::kFloat32, 1e-5}, Mix{DType::kFloat32, DType::kFloat64, 1e-6},
                       Mix{DType::kFloat64, DType::kFloat16, 2e-3}, Mix{DType::kFloat16, DType::kFloat64, 1e-6}}) {
    const Tensor y = RunOne(OpCall{"RMSNormalization", 23, {},
                                   {testing::MakeTensor(m.x, {rows, n}, x), testing::MakeTensor(m.scale, {n}, scale)}});
    ASSERT_EQ(y.dtype(), m.scale) << DTypeName(m.x) << " x, " << DTypeName(m.scale) << " scale";
    ExpectClose(Values(y), want, m.tol, "RMSNormalization mixed types");
  }
}

}  // namespace
}  // namespace vt::ops
