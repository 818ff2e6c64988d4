// SkipLayerNormalization / SkipSimplifiedLayerNormalization against the definition in double:
// every optional input and output, the skip broadcast forms, float16 and float64, and the
// errors that name the input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrFloat;
using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::Values;

std::vector<double> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<double> v(n);
  for (auto& e : v) e = static_cast<float>(u(rng));
  return v;
}

struct Want {
  std::vector<double> y, mean, inv, sum;
};

// x [rows, h]; skip row r % skip_rows.
Want Define(const std::vector<double>& x, const std::vector<double>& skip, const std::vector<double>& g,
            const std::vector<double>* beta, const std::vector<double>* bias, size_t h, double eps, bool rms) {
  Want w;
  const size_t rows = x.size() / h, skip_rows = skip.size() / h;
  for (size_t r = 0; r < rows; ++r) {
    std::vector<double> s(h);
    double m = 0, v = 0;
    for (size_t i = 0; i < h; ++i) {
      s[i] = x[r * h + i] + skip[(r % skip_rows) * h + i] + (bias ? (*bias)[i] : 0.0);
      m += s[i];
    }
    m = rms ? 0.0 : m / double(h);
    for (double e : s) v += (e - m) * (e - m);
    const double inv = 1 / std::sqrt(v / double(h) + eps);
    for (size_t i = 0; i < h; ++i) {
      w.y.push_back((s[i] - m) * inv * g[i] + (beta ? (*beta)[i] : 0.0));
      w.sum.push_back(s[i]);
    }
    w.mean.push_back(m);
    w.inv.push_back(inv);
  }
  return w;
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " at " << i;
}

TEST(SkipLayerNorm, EveryOptionalInputAndOutput) {
  for (size_t h : {1, 7, 33, 257}) {
    const Shape shape{2, 3, static_cast<int64_t>(h)};
    const auto x = Random(6 * h, 1), skip = Random(6 * h, 2), g = Random(h, 3), beta = Random(h, 4),
               bias = Random(h, 5);
    for (int variant = 0; variant < 4; ++variant) {
      const bool with_beta = variant & 1, with_bias = variant & 2;
      OpCall c{"SkipLayerNormalization", 1, {AttrFloat("epsilon", 1e-5f)},
               {F32(shape, x), F32(shape, skip), F32({int64_t(h)}, g), F32({int64_t(h)}, beta),
                F32({int64_t(h)}, bias)}};
      c.domain = "com.microsoft";
      c.absent = {false, false, false, !with_beta, !with_bias};
      c.num_outputs = 4;
      auto r = c.Run();
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      const Want w = Define(x, skip, g, with_beta ? &beta : nullptr, with_bias ? &bias : nullptr, h, 1e-5, false);
      const std::string what = "h" + std::to_string(h) + " variant " + std::to_string(variant);
      ExpectNear(Values((*r)[0].tensor()), w.y, 1e-5, what + " output");
      ExpectNear(Values((*r)[1].tensor()), w.mean, 1e-5, what + " mean");
      ExpectNear(Values((*r)[2].tensor()), w.inv, 1e-5, what + " inv_std_var");
      ExpectNear(Values((*r)[3].tensor()), w.sum, 1e-6, what + " input_skip_bias_sum");
      EXPECT_EQ((*r)[1].tensor().shape(), (Shape{2, 3, 1}));
      EXPECT_EQ((*r)[2].tensor().dtype(), DType::kFloat32);
    }
  }
}

TEST(SkipLayerNorm, SimplifiedWithBiasAsInput3) {
  const size_t h = 17;
  const auto x = Random(4 * h, 6), skip = Random(4 * h, 7), g = Random(h, 8), bias = Random(h, 9);
  OpCall c{"SkipSimplifiedLayerNormalization", 1, {},
           {F32({4, int64_t(h)}, x), F32({4, int64_t(h)}, skip), F32({int64_t(h)}, g), F32({int64_t(h)}, bias)}};
  c.domain = "com.microsoft";
  c.num_outputs = 4;
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Want w = Define(x, skip, g, nullptr, &bias, h, 1e-12, true);
  ExpectNear(Values((*r)[0].tensor()), w.y, 1e-5, "output");
  ExpectNear(Values((*r)[1].tensor()), std::vector<double>(4, 0.0), 0, "mean (0 for RMS)");
  ExpectNear(Values((*r)[2].tensor()), w.inv, 1e-5, "inv_std_var");
  ExpectNear(Values((*r)[3].tensor()), w.sum, 1e-6, "sum");
}

TEST(SkipLayerNorm, SkipBroadcastForms) {
  const size_t h = 8;
  const Shape shape{3, 2, int64_t(h)};
  const auto x = Random(6 * h, 10), g = Random(h, 11);
  for (const Shape& ss : {Shape{1, 2, int64_t(h)}, Shape{2, int64_t(h)}, Shape{3, 2, int64_t(h)}}) {
    const auto skip = Random(size_t(NumElements(ss)), 12);
    OpCall c{"SkipLayerNormalization", 1, {}, {F32(shape, x), F32(ss, skip), F32({int64_t(h)}, g)}};
    c.domain = "com.microsoft";
    auto r = c.Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ExpectNear(Values((*r)[0].tensor()), Define(x, skip, g, nullptr, nullptr, h, 1e-12, false).y, 1e-5,
               "skip " + ShapeToString(ss));
  }
}

TEST(SkipLayerNorm, Float16AndFloat64) {
  const size_t h = 33;
  const auto x = Random(2 * h, 13), skip = Random(2 * h, 14), g = Random(h, 15);
  const Want w = Define(x, skip, g, nullptr, nullptr, h, 1e-12, false);
  for (DType dt : {DType::kFloat16, DType::kFloat64}) {
    OpCall c{"SkipLayerNormalization", 1, {},
             {MakeTensor(dt, {2, int64_t(h)}, x), MakeTensor(dt, {2, int64_t(h)}, skip), MakeTensor(dt, {int64_t(h)}, g)}};
    c.domain = "com.microsoft";
    c.num_outputs = 4;
    auto r = c.Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].tensor().dtype(), dt);
    EXPECT_EQ((*r)[3].tensor().dtype(), dt);
    // float16 inputs hold the f16-rounded values (relative 5e-4 each, amplified by 1 / std);
    // the output rounds once more.
    const double tol = dt == DType::kFloat16 ? 2e-2 : 1e-12;
    ExpectNear(Values((*r)[0].tensor()), w.y, tol, DTypeName(dt) + std::string(" output"));
  }
}

TEST(SkipLayerNorm, BadInputsNameTheInput) {
  const Shape shape{2, 3, 4};
  const auto x = Random(24, 1);
  auto run = [&](std::vector<Value> in, std::vector<bool> absent = {}) {
    OpCall c{"SkipLayerNormalization", 1, {}, std::move(in)};
    c.domain = "com.microsoft";
    c.absent = std::move(absent);
    auto r = c.Run();
    return r.ok() ? std::string("ok") : r.status().message();
  };
  const Tensor X = F32(shape, x), G = F32({4}, {1, 1, 1, 1});
  EXPECT_NE(run({X, F32({2, 3, 5}, x), G}).find("input 'skip' (1)"), std::string::npos);
  EXPECT_NE(run({X, F32({3, 4}, x), F32({5}, {1, 1, 1, 1, 1})}).find("input 'gamma' (2): expected shape [4], got [5]"),
            std::string::npos);
  EXPECT_NE(run({X, X, G, F32({3}, {0, 0, 0})}).find("input 'beta' (3)"), std::string::npos);
  EXPECT_NE(run({X, X, G, G, F32({2, 4}, x)}).find("input 'bias' (4)"), std::string::npos);
  EXPECT_NE(run({F32({24}, x), F32({24}, x), G}).find("input 'input' (0): expected rank 3"), std::string::npos);
  EXPECT_NE(run({X, X}).find("input 'gamma' (2) is required but missing"), std::string::npos);
  EXPECT_NE(run({X, MakeTensor(DType::kFloat64, shape, x), G}).find("input 'skip' (1) has element type"),
            std::string::npos);
  EXPECT_NE(run({F32({4, 4}, x), F32({1, 4}, x), G}).find("input 'skip' (1)"), std::string::npos);
}

}  // namespace
}  // namespace vt::ops
