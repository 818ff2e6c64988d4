// The GELU-family operators against the definitions in double: com.microsoft Gelu, BiasGelu,
// FastGelu (with and without bias), QuickGelu (alpha), BiasSplitGelu and ONNX Gelu-20, in
// float32, float16 and float64; bias shape errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrFloat;
using testing::AttrString;
using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::Values;

double Phi(double v) { return 0.5 * std::erfc(-v / std::sqrt(2.0)); }
double Erf(double v) { return v * Phi(v); }
double Tanh(double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); }
double Quick(double v, double a) { return v / (1 + std::exp(-a * v)); }

std::vector<double> Random(size_t n, uint32_t seed, double lo = -5, double hi = 5) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto& e : v) e = static_cast<float>(u(rng));
  return v;
}

Expected<std::vector<double>> RunOp(const std::string& op, std::vector<Value> in, std::vector<Attribute> attrs = {},
                                  const std::string& domain = "com.microsoft", int opset = 1) {
  OpCall c{op, opset, std::move(attrs), std::move(in)};
  c.domain = domain;
  auto r = c.Run();
  if (!r.ok()) return r.status();
  return Values((*r)[0].tensor());
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol, const std::string& what,
                double abs_tol = 1e-30) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * std::fabs(want[i]) + abs_tol) << what << " at " << i;
}

TEST(GeluOps, EveryOperatorAndBias) {
  for (int64_t n : {1, 7, 33, 257}) {
    const auto x = Random(size_t(3 * n), 1), b = Random(size_t(n), 2, -1, 1);
    const Tensor X = F32({3, n}, x), B = F32({n}, b);
    std::vector<double> gelu, bias_gelu, fast, fast_bias, quick, quick1;
    for (size_t i = 0; i < x.size(); ++i) {
      const double vb = static_cast<float>(x[i] + b[i % size_t(n)]);
      gelu.push_back(Erf(x[i])), bias_gelu.push_back(Erf(vb)), fast.push_back(Tanh(x[i]));
      fast_bias.push_back(Tanh(vb)), quick.push_back(Quick(x[i], 1.702)), quick1.push_back(Quick(x[i], 1.0));
    }
    const std::string w = " n" + std::to_string(n);
    ExpectNear(*RunOp("Gelu", {X}), gelu, 4e-6, "Gelu" + w);
    ExpectNear(*RunOp("BiasGelu", {X, B}), bias_gelu, 4e-6, "BiasGelu" + w);
    ExpectNear(*RunOp("FastGelu", {X}), fast, 4e-6, "FastGelu" + w);
    ExpectNear(*RunOp("FastGelu", {X, B}), fast_bias, 4e-6, "FastGelu bias" + w);
    ExpectNear(*RunOp("QuickGelu", {X}), quick, 4e-6, "QuickGelu" + w);
    ExpectNear(*RunOp("QuickGelu", {X}, {AttrFloat("alpha", 1.0f)}), quick1, 4e-6, "QuickGelu alpha 1" + w);
    ExpectNear(*RunOp("Gelu", {X}, {}, "", 20), gelu, 4e-6, "Gelu-20" + w);
    ExpectNear(*RunOp("Gelu", {X}, {AttrString("approximate", "tanh")}, "", 20), fast, 4e-6, "Gelu-20 tanh" + w);
  }
}

TEST(GeluOps, Float16AndFloat64) {
  const auto x = Random(40, 3);
  std::vector<double> want;
  want.reserve(x.size());
  for (double v : x) want.push_back(Erf(static_cast<double>(HalfToFloat(FloatToHalf(float(v))))));
  auto h = RunOp("Gelu", {MakeTensor(DType::kFloat16, {40}, x)});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ExpectNear(*h, want, 1e-3, "f16", 3e-8);  // half an f16 subnormal step
  std::vector<double> exact;
  exact.reserve(x.size());
  for (double v : x) exact.push_back(Erf(v));
  ExpectNear(*RunOp("Gelu", {MakeTensor(DType::kFloat64, {40}, x)}), exact, 1e-14, "f64");
  ExpectNear(*RunOp("Gelu", {MakeTensor(DType::kFloat64, {40}, x)}, {}, "", 20), exact, 1e-14, "Gelu-20 f64");
}

TEST(GeluOps, BiasSplitGelu) {
  const int64_t d = 10;
  const auto x = Random(size_t(2 * 3 * d), 4), b = Random(size_t(d), 5, -1, 1);
  std::vector<double> want;
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t i = 0; i < d / 2; ++i) {
      const double left = static_cast<float>(x[size_t(r * d + i)] + b[size_t(i)]);
      const double right = static_cast<float>(x[size_t(r * d + d / 2 + i)] + b[size_t(d / 2 + i)]);
      want.push_back(left * Erf(right));
    }
  ExpectNear(*RunOp("BiasSplitGelu", {F32({2, 3, d}, x), F32({d}, b)}), want, 4e-6, "BiasSplitGelu");
  EXPECT_FALSE(RunOp("BiasSplitGelu", {F32({2, 3, 9}, Random(54, 1)), F32({9}, Random(9, 1))}).ok());
}

TEST(GeluOps, BadBiasNamesTheInput) {
  const Tensor X = F32({2, 4}, Random(8, 6));
  auto msg = [](const Expected<std::vector<double>>& r) { return r.ok() ? std::string("ok") : r.status().message(); };
  EXPECT_NE(msg(RunOp("BiasGelu", {X, F32({2, 4}, Random(8, 7))})).find("input 'B' (1): expected shape [4], got [2,4]"),
            std::string::npos);
  EXPECT_NE(msg(RunOp("BiasGelu", {X})).find("input 'B' (1) is required"), std::string::npos);
  EXPECT_NE(msg(RunOp("FastGelu", {X, F32({3}, Random(3, 7))})).find("input 'bias' (1)"), std::string::npos);
  EXPECT_NE(msg(RunOp("Gelu", {MakeTensor(DType::kInt32, {2}, {1, 2})})).find("element type int32"), std::string::npos);
}

}  // namespace
}  // namespace vt::ops
