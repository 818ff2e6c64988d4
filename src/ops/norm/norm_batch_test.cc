// BatchNormalization against direct double formulas.
#include <gtest/gtest.h>

#include "ops/norm/norm_test_util.h"

namespace vt::ops {
namespace {

using namespace normtest;

TEST(BatchNorm, InferenceAndTrainingOutputs) {
  const int64_t n = 2, c = 3, s = 5;
  const auto x = Random(static_cast<size_t>(n * c * s), 1);
  const std::vector<double> scale{1, 2, 0.5}, bias{0, -1, 3}, mean{0.1, 0.2, -0.3}, var{1, 2, 0.5};
  auto vec = [](const std::vector<double>& v) { return F32({3}, v); };
  OpCall call{"BatchNormalization", 15, {AttrFloat("epsilon", 1e-3f)},
              {F32({n, c, s}, x), vec(scale), vec(bias), vec(mean), vec(var)}};
  std::vector<double> want(x.size());
  for (int64_t i = 0; i < n * c * s; ++i) {
    const int64_t ch = (i / s) % c;
    want[i] = (x[i] - mean[ch]) / std::sqrt(var[ch] + 1e-3) * scale[ch] + bias[ch];
  }
  ExpectClose(Values(RunOne(call)), want, 1e-5, "inference");

  call.attrs.push_back(AttrInt("training_mode", 1));
  call.attrs.push_back(AttrFloat("momentum", 0.8f));
  call.num_outputs = 3;
  auto r = call.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<double> run_mean, run_var;
  for (int64_t ch = 0; ch < c; ++ch) {
    double m, v;
    Moments(n * s, [&](int64_t k) { return x[static_cast<size_t>((k / s * c + ch) * s + k % s)]; }, &m, &v);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t k = 0; k < s; ++k) {
        const size_t i = static_cast<size_t>((b * c + ch) * s + k);
        want[i] = (x[i] - m) / std::sqrt(v + 1e-3) * scale[ch] + bias[ch];
      }
    run_mean.push_back(mean[ch] * 0.8 + m * 0.2);
    run_var.push_back(var[ch] * 0.8 + v * 0.2);
  }
  ExpectClose(Values((*r)[0].tensor()), want, 1e-5, "training y");
  ExpectClose(Values((*r)[1].tensor()), run_mean, 1e-5, "running mean");
  ExpectClose(Values((*r)[2].tensor()), run_var, 1e-5, "running var");
}

TEST(BatchNorm, RankTwoHalfAndErrors) {
  Tensor x = MakeTensor(DType::kFloat16, {2, 2}, {1, 2, 3, 4});
  Tensor p = MakeTensor(DType::kFloat16, {2}, {1, 1});
  Tensor z = MakeTensor(DType::kFloat16, {2}, {0, 0});
  Tensor y = RunOne(OpCall{"BatchNormalization", 9, {AttrFloat("epsilon", 0)}, {x, p, z, z, p}});
  EXPECT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(Values(y), (std::vector<double>{1, 2, 3, 4}));
  Tensor bad = F32({3}, {1, 1, 1});
  EXPECT_FALSE((OpCall{"BatchNormalization", 9, {}, {F32({2, 2}, {1, 2, 3, 4}), bad, bad, bad, bad}}.Run().ok()));
  EXPECT_FALSE((OpCall{"BatchNormalization", 9, {}, {F32({2}, {1, 2}), bad, bad, bad, bad}}.Run().ok()));
}

}  // namespace
}  // namespace vt::ops
