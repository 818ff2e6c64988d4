// Every activation-epilogue table kernel against the scalar reference twin (within the 1 ulp
// a fused multiply-add may differ by; NaN stays NaN), and the twin against the ONNX
// definitions.
#include "kernels/conv/f32_conv_act.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <random>
#include <vector>

namespace vt::kernels {

// gtest prints a test's parameter in test listings (ctest shows it): the row's name, not
// its bytes. Declared beside the row type's namespace so that gtest finds it.
void PrintTo(const F32ConvActKernel& row, std::ostream* os) { *os << row.name; }

namespace {

std::vector<F32ConvActParams> AllParams() {
  std::vector<F32ConvActParams> ps;
  for (bool affine : {false, true}) {
    for (F32ConvAct act : {F32ConvAct::kIdentity, F32ConvAct::kClamp, F32ConvAct::kLeakyRelu,
                           F32ConvAct::kHardSigmoid, F32ConvAct::kHardSwish}) {
      F32ConvActParams p;
      p.act = act;
      p.affine = affine;
      p.scale = affine ? 1.75f : 1.0f;
      p.shift = affine ? -0.3f : 0.0f;
      if (act == F32ConvAct::kClamp) p.p0 = -0.5f, p.p1 = 6.0f;
      if (act == F32ConvAct::kLeakyRelu) p.p0 = 0.1f;
      if (act == F32ConvAct::kHardSigmoid) p.p0 = 0.2f, p.p1 = 0.5f;
      ps.push_back(p);
    }
  }
  return ps;
}

class ConvActTest : public ::testing::TestWithParam<F32ConvActKernel> {};

TEST_P(ConvActTest, MatchesReference) {
  const F32ConvActKernel& kr = GetParam();
  if (!kr.supported()) GTEST_SKIP() << kr.name << " not supported on this CPU";
  std::mt19937 g(3);
  std::uniform_real_distribution<float> d(-8, 8);
  for (const F32ConvActParams& p : AllParams()) {
    for (size_t n : {0, 1, 7, 16, 17, 33, 63, 64, 65, 129, 257}) {
      std::vector<float> x(n + 1);
      for (auto& v : x) v = d(g);
      if (n > 3) x[3] = std::numeric_limits<float>::quiet_NaN();
      std::vector<float> want = x, got = x;
      f32_conv_act_scalar(&p, want.data(), n);
      kr.fn(&p, got.data(), n);
      for (size_t i = 0; i <= n; ++i) {
        if (std::isnan(want[i])) {
          ASSERT_TRUE(std::isnan(got[i])) << kr.name << " act " << static_cast<int>(p.act);
          continue;
        }
        // 1 ulp of the value, or of the largest intermediate (the affine step's inputs).
        const float ulp = std::max(std::fabs(want[i]), 8.0f * std::fabs(p.scale) + 1.0f) *
                          std::numeric_limits<float>::epsilon();
        ASSERT_LE(std::fabs(got[i] - want[i]), ulp)
            << kr.name << " act " << static_cast<int>(p.act) << " affine " << p.affine << " n "
            << n << " i " << i << ": " << got[i] << " vs " << want[i];
      }
      EXPECT_EQ(got[n], x[n]) << "wrote past n";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Table, ConvActTest, ::testing::ValuesIn(F32ConvActKernels().begin(),
                                                                 F32ConvActKernels().end()),
                         [](const auto& info) { return std::string(info.param.isa); });

TEST(ConvActReferenceTest, FollowsTheOnnxDefinitions) {
  F32ConvActParams p;
  p.act = F32ConvAct::kHardSwish;
  std::vector<float> y = {-4.0f, -3.0f, -1.5f, 0.0f, 1.5f, 3.0f, 5.0f};
  f32_conv_act_scalar(&p, y.data(), y.size());
  const float want[] = {-0.0f, 0.0f, -0.375f, 0.0f, 1.125f, 3.0f, 5.0f};
  for (size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], want[i]) << i;

  p.act = F32ConvAct::kHardSigmoid;
  p.p0 = 0.2f, p.p1 = 0.5f;
  p.affine = true, p.scale = 2.0f, p.shift = 1.0f;
  y = {-5.0f, 0.0f, 1.0f, 4.0f};
  f32_conv_act_scalar(&p, y.data(), y.size());
  EXPECT_FLOAT_EQ(y[0], 1.0f);
  EXPECT_FLOAT_EQ(y[1], 2.0f);
  EXPECT_FLOAT_EQ(y[2], 2.4f);
  EXPECT_FLOAT_EQ(y[3], 3.0f);

  p = {};
  p.act = F32ConvAct::kLeakyRelu;
  p.p0 = 0.5f;
  y = {-2.0f, 3.0f};
  f32_conv_act_scalar(&p, y.data(), y.size());
  EXPECT_FLOAT_EQ(y[0], -1.0f);
  EXPECT_FLOAT_EQ(y[1], 3.0f);
}

}  // namespace
}  // namespace vt::kernels
