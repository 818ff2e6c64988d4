#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/common/op_test_util.h"
#include "ops/elementwise/unary_fast_math.h"

namespace vt::ops {
namespace {

using testing::OpCall;

double RelErr(double got, double want) {
  if (got == want) return 0;
  return std::fabs(got - want) / std::max(std::fabs(want), 1e-30);
}

TEST(FastMath, ExpFamilyIsAccurateToAFewUlp) {
  double worst_exp = 0, worst_expm1 = 0, worst_sig = 0, worst_tanh = 0;
  for (float x = -80.0f; x <= 80.0f; x += 0.0137f) {
    worst_exp = std::max(worst_exp, RelErr(fastmath::Exp(x), std::exp(static_cast<double>(x))));
    worst_expm1 =
        std::max(worst_expm1, RelErr(fastmath::Expm1(x), std::expm1(static_cast<double>(x))));
    worst_sig = std::max(
        worst_sig, RelErr(fastmath::Sigmoid(x), 1.0 / (1.0 + std::exp(-static_cast<double>(x)))));
    worst_tanh = std::max(worst_tanh, RelErr(fastmath::Tanh(x), std::tanh(static_cast<double>(x))));
  }
  for (float x = -1e-3f; x <= 1e-3f; x += 1.7e-6f) {
    worst_expm1 =
        std::max(worst_expm1, RelErr(fastmath::Expm1(x), std::expm1(static_cast<double>(x))));
    worst_tanh = std::max(worst_tanh, RelErr(fastmath::Tanh(x), std::tanh(static_cast<double>(x))));
  }
  EXPECT_LT(worst_exp, 1e-6);
  EXPECT_LT(worst_expm1, 1e-6);
  EXPECT_LT(worst_sig, 1e-6);
  EXPECT_LT(worst_tanh, 1e-6);
}

TEST(FastMath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(fastmath::Sigmoid(inf), 1.0f);
  EXPECT_EQ(fastmath::Sigmoid(-inf), 0.0f);
  EXPECT_EQ(fastmath::Sigmoid(0.0f), 0.5f);
  EXPECT_TRUE(std::isnan(fastmath::Sigmoid(nan)));
  EXPECT_EQ(fastmath::Tanh(inf), 1.0f);
  EXPECT_EQ(fastmath::Tanh(-inf), -1.0f);
  EXPECT_EQ(fastmath::Tanh(0.0f), 0.0f);
  EXPECT_FALSE(std::signbit(fastmath::Tanh(0.0f)));
  EXPECT_TRUE(std::signbit(fastmath::Tanh(-0.0f)));
  EXPECT_TRUE(std::isnan(fastmath::Tanh(nan)));
  EXPECT_EQ(fastmath::Expm1(-inf), -1.0f);
}

std::vector<double> Run1(const std::string& op, int opset, std::vector<Attribute> attrs,
                         const std::vector<double>& x) {
  Tensor y = testing::RunOne(
      {op, opset, std::move(attrs), {testing::F32({static_cast<int64_t>(x.size())}, x)}});
  return testing::Values(y);
}

TEST(Activations, MatchSpecFormulas) {
  const std::vector<double> x = {-3, -0.5, 0, 0.25, 4};
  auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-6 * (1 + std::fabs(want[i]))) << i;
  };
  near(Run1("Relu", 14, {}, x), {0, 0, 0, 0.25, 4});
  near(Run1("LeakyRelu", 16, {testing::AttrFloat("alpha", 0.1f)}, x), {-0.3, -0.05, 0, 0.25, 4});
  near(Run1("Elu", 6, {}, x), {std::expm1(-3), std::expm1(-0.5), 0, 0.25, 4});
  near(Run1("HardSigmoid", 6, {}, x), {0, 0.4, 0.5, 0.55, 1});
  near(Run1("HardSwish", 14, {}, x), {0, -0.5 * (2.5 / 6), 0, 0.25 * (3.25 / 6), 4});
  near(Run1("ThresholdedRelu", 10, {}, x), {0, 0, 0, 0, 4});
  near(Run1("Shrink", 9, {testing::AttrFloat("bias", 1.5f), testing::AttrFloat("lambd", 1.0f)}, x),
       {-1.5, 0, 0, 0, 2.5});
  near(Run1("Softsign", 1, {}, x), {-0.75, -0.5 / 1.5, 0, 0.2, 0.8});
  near(Run1("Celu", 12, {testing::AttrFloat("alpha", 2.0f)}, x),
       {2 * std::expm1(-1.5), 2 * std::expm1(-0.25), 0, 0.25, 4});
  std::vector<double> sp, mish, gelu;
  for (double v : x) {
    sp.push_back(std::log1p(std::exp(v)));
    mish.push_back(v * std::tanh(std::log1p(std::exp(v))));
    gelu.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
  }
  near(Run1("Softplus", 1, {}, x), sp);
  near(Run1("Mish", 18, {}, x), mish);
  near(Run1("Gelu", 20, {}, x), gelu);
  EXPECT_FALSE(
      (OpCall{"Gelu", 20, {testing::AttrString("approximate", "erf")}, {testing::F32({1}, {1})}})
          .Run()
          .ok());
}

TEST(Activations, NaNPropagatesAndIntRelu) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* op :
       {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Elu"}) {
    auto y = Run1(op, 14, {}, {nan});
    EXPECT_TRUE(std::isnan(y[0])) << op;
  }
  Tensor y = testing::RunOne({"Relu", 14, {}, {testing::I64({3}, {-5, 0, 7})}});
  EXPECT_EQ(testing::Values(y), (std::vector<double>{0, 0, 7}));
  EXPECT_FALSE((OpCall{"Sigmoid", 13, {}, {testing::I64({1}, {1})}}).Run().ok());
}

TEST(PRelu, BroadcastAndLegacyChannelSlope) {
  Tensor x = testing::F32({2, 3, 2}, {-1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6});
  // Opset 16: slope [3,1] broadcasts numpy-style.
  Tensor y = testing::RunOne({"PRelu", 16, {}, {x, testing::F32({3, 1}, {1, 10, 100})}});
  EXPECT_EQ(testing::Values(y),
            (std::vector<double>{-1, 1, -20, 2, -300, 3, -4, 4, -50, 5, -600, 6}));
  // Opset 6: a 1-D slope of length C applies along axis 1.
  Tensor z = testing::RunOne({"PRelu", 6, {}, {x, testing::F32({3}, {1, 10, 100})}});
  EXPECT_EQ(testing::Values(z), testing::Values(y));
  // The slope may not grow the output.
  EXPECT_FALSE(
      (OpCall{"PRelu", 16, {}, {testing::F32({2}, {1, 2}), testing::F32({3, 2}, {})}}).Run().ok());
}

}  // namespace
}  // namespace vt::ops
