#include "kernels/conv/f32_conv_direct.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/gemm/f32_gemm.h"

namespace vt::kernels {
namespace {

// `P` leading pads and `E` trailing ones (E = P when omitted).
F32DirectConvGeometry Geo(int64_t C, int64_t H, int64_t W, int64_t KH, int64_t KW, int64_t S,
                          int64_t D, int64_t P, int64_t E = -1) {
  if (E < 0) E = P;
  F32DirectConvGeometry g;
  g.C = C;
  g.H = H;
  g.W = W;
  g.KH = KH;
  g.KW = KW;
  g.SH = S;
  g.SW = S;
  g.DH = D;
  g.DW = D;
  g.PH = P;
  g.PW = P;
  g.OH = (H + P + E - ((KH - 1) * D + 1)) / S + 1;
  g.OW = (W + P + E - ((KW - 1) * D + 1)) / S + 1;
  return g;
}

// B [K, OH * OW] of the convolution, rows in (c, kh, kw) order, zeros for the pads.
std::vector<float> Im2col(const F32DirectConvGeometry& g, const std::vector<float>& x) {
  const int64_t n = g.OH * g.OW;
  std::vector<float> b(static_cast<size_t>(g.K() * n), 0.0f);
  for (int64_t c = 0, k = 0; c < g.C; ++c)
    for (int64_t kh = 0; kh < g.KH; ++kh)
      for (int64_t kw = 0; kw < g.KW; ++kw, ++k)
        for (int64_t oh = 0; oh < g.OH; ++oh)
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            const int64_t ih = oh * g.SH - g.PH + kh * g.DH, iw = ow * g.SW - g.PW + kw * g.DW;
            if (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W)
              b[static_cast<size_t>(k * n + oh * g.OW + ow)] = x[static_cast<size_t>((c * g.H + ih) * g.W + iw)];
          }
  return b;
}

// The packed Conv mode's result: the GEMM row `gemm` over the same panels and im2col B.
std::vector<float> GemmConv(const F32GemmKernel& gemm, const F32DirectConvGeometry& g,
                            const F32Panels& w, int64_t M, const float* bias,
                            const F32GemmEpilogue& ep, const std::vector<float>& x) {
  const size_t n = static_cast<size_t>(g.OH * g.OW);
  const std::vector<float> b = Im2col(g, x);
  std::vector<float> y(static_cast<size_t>(M) * n);
  F32GemmEpilogue e = ep;
  e.bias_m = bias;
  F32GemmA a;
  a.kind = F32GemmA::Kind::kPanels;
  a.panels = &w;
  const F32GemmB bb{F32GemmB::Kind::kKn, b.data(), n};
  F32Gemm(gemm, static_cast<size_t>(M), n, static_cast<size_t>(g.K()), a, bb, y.data(), n, e, 1);
  return y;
}

TEST(F32ConvDirect, SameBitsAsTheGemmOverTheSamePanels) {
  if (!F32DirectConvApplies(Geo(3, 8, 40, 3, 3, 2, 1, 1), 8)) GTEST_SKIP() << "no AVX-512";
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  struct Case {
    F32DirectConvGeometry g;
    int64_t M;
    const char* gemm;
  };
  const Case cases[] = {
      {Geo(3, 21, 64, 3, 3, 2, 1, 1), 16, "f32_gemm_8x32_avx512"},   // an RGB stem
      {Geo(3, 20, 70, 3, 3, 2, 1, 1), 24, "f32_gemm_12x32_avx512"},  // odd width, tail tile
      {Geo(1, 9, 37, 3, 3, 1, 1, 1), 5, "f32_gemm_4x32_avx512"},     // stride 1, 2 panels
      {Geo(4, 12, 50, 5, 5, 2, 1, 2), 14, "f32_gemm_14x32_avx512"},  // 5x5, K = 100
      {Geo(2, 15, 61, 7, 7, 2, 1, 3), 6, "f32_gemm_6x64_avx512"},    // 7x7, K = 98
      {Geo(3, 11, 45, 3, 3, 1, 2, 2), 3, "f32_gemm_2x32_avx512"},    // dilation 2
      {Geo(2, 10, 80, 3, 3, 3, 1, 0), 1, "f32_gemm_1x32_avx512"},    // stride 3, no pads
      {Geo(3, 16, 47, 3, 3, 2, 1, 0, 5), 8, "f32_gemm_8x32_avx512"},  // end pads only
      {Geo(1, 1, 90, 1, 9, 2, 1, 4), 12, "f32_gemm_12x32_avx512"},   // one row (1-D)
  };
  for (const Case& cs : cases) {
    const F32DirectConvGeometry& g = cs.g;
    SCOPED_TRACE(std::string(cs.gemm) + " C=" + std::to_string(g.C) + " K=" +
                 std::to_string(g.KH) + " S=" + std::to_string(g.SH) + " W=" + std::to_string(g.W));
    const F32GemmKernel* gemm = FindF32GemmKernel(cs.gemm);
    ASSERT_NE(gemm, nullptr);
    std::vector<float> x(static_cast<size_t>(g.C * g.H * g.W)), w(static_cast<size_t>(cs.M * g.K())),
        bias(static_cast<size_t>(cs.M));
    for (auto& v : x) v = d(gen);
    for (auto& v : w) v = d(gen);
    for (auto& v : bias) v = d(gen);
    const F32Panels panels = MakeF32PanelsFromMk(gemm->mr, static_cast<size_t>(cs.M),
                                                 static_cast<size_t>(g.K()), w.data(),
                                                 static_cast<size_t>(g.K()));
    ASSERT_TRUE(F32DirectConvApplies(g, gemm->mr));
    for (bool with_bias : {false, true})
      for (bool clamp : {false, true}) {
        F32GemmEpilogue ep;
        ep.clamp = clamp;
        ep.min = -0.5f;
        ep.max = 0.75f;
        const float* b = with_bias ? bias.data() : nullptr;
        const std::vector<float> want = GemmConv(*gemm, g, panels, cs.M, b, ep, x);
        std::vector<float> y(want.size(), -7.0f);
        std::vector<float> rows(F32DirectConvRowFloats(g));  // exactly: an overrun shows
        // Two calls: rows [0, split) and [split, OH).
        const int64_t split = g.OH / 3;
        f32_conv_direct_avx512(g, panels, cs.M, b, clamp, ep.min, ep.max, x.data(), 0, split,
                               y.data(), rows.data());
        f32_conv_direct_avx512(g, panels, cs.M, b, clamp, ep.min, ep.max, x.data(), split, g.OH,
                               y.data(), rows.data());
        ASSERT_EQ(std::memcmp(y.data(), want.data(), want.size() * sizeof(float)), 0)
            << "bias " << with_bias << " clamp " << clamp;
      }
  }
}

// Subnormal inputs and products are flushed as the GEMM flushes them: still the same bits.
TEST(F32ConvDirect, SubnormalsGiveTheGemmsBits) {
  const F32DirectConvGeometry g = Geo(3, 9, 45, 3, 3, 2, 1, 1);
  if (!F32DirectConvApplies(g, 8)) GTEST_SKIP() << "no AVX-512";
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(g.C * g.H * g.W)), w(static_cast<size_t>(8 * g.K()));
  for (auto& v : x) v = d(gen) * 1e-38f;  // subnormal and normal inputs
  for (auto& v : w) v = d(gen);
  const F32GemmKernel* gemm = FindF32GemmKernel("f32_gemm_8x32_avx512");
  ASSERT_NE(gemm, nullptr);
  const F32Panels panels = MakeF32PanelsFromMk(8, 8, static_cast<size_t>(g.K()), w.data(),
                                               static_cast<size_t>(g.K()));
  const std::vector<float> want = GemmConv(*gemm, g, panels, 8, nullptr, F32GemmEpilogue{}, x);
  std::vector<float> y(want.size()), rows(F32DirectConvRowFloats(g));
  f32_conv_direct_avx512(g, panels, 8, nullptr, false, 0.0f, 0.0f, x.data(), 0, g.OH, y.data(),
                         rows.data());
  EXPECT_EQ(std::memcmp(y.data(), want.data(), want.size() * sizeof(float)), 0);
}

TEST(F32ConvDirect, TakesFewChannelsShortSumsAndWideRowsOnly) {
  if (!F32DirectConvApplies(Geo(3, 8, 40, 3, 3, 2, 1, 1), 8)) GTEST_SKIP() << "no AVX-512";
  EXPECT_FALSE(F32DirectConvApplies(Geo(5, 8, 40, 3, 3, 2, 1, 1), 8));   // 5 channels
  EXPECT_FALSE(F32DirectConvApplies(Geo(3, 20, 40, 7, 7, 2, 1, 3), 8));  // K = 147
  EXPECT_FALSE(F32DirectConvApplies(Geo(3, 8, 20, 3, 3, 2, 1, 1), 8));   // OW = 10
  EXPECT_FALSE(F32DirectConvApplies(Geo(3, 8, 40, 3, 3, 2, 1, 1), 16));  // no 16-row tile
  EXPECT_TRUE(F32DirectConvApplies(Geo(4, 8, 40, 3, 3, 1, 1, 1), 14));
}

}  // namespace
}  // namespace vt::kernels
