#include "kernels/conv/f32_conv_transpose_2x2.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/conv/f32_col2im.h"
#include "kernels/gemm/f32_gemm.h"

namespace vt::kernels {
namespace {

// The ConvTranspose GEMM path: col [(m, kh, kw), H * W] = W^T X with the bias per row, stored
// into Y by col2im (each output written once).
std::vector<float> GemmPath(const F32ConvTranspose2x2Geometry& g, const std::vector<float>& w,
                            const float* bias, const std::vector<float>& x) {
  const F32GemmKernel* gemm = FindF32GemmKernel("f32_gemm_8x32_avx512");
  const size_t rows = static_cast<size_t>(g.M * 4), n = static_cast<size_t>(g.H * g.W);
  const F32Panels a = MakeF32PanelsFromKm(gemm->mr, rows, static_cast<size_t>(g.C), w.data(), rows);
  F32GemmA A;
  A.kind = F32GemmA::Kind::kPanels;
  A.panels = &a;
  std::vector<float> bias_rows;
  F32GemmEpilogue ep;
  if (bias != nullptr) {
    for (int64_t m = 0; m < g.M; ++m) bias_rows.insert(bias_rows.end(), 4, bias[m]);
    ep.bias_m = bias_rows.data();
  }
  std::vector<float> col(rows * n);
  F32Gemm(*gemm, rows, n, static_cast<size_t>(g.C), A, F32GemmB{F32GemmB::Kind::kKn, x.data(), n},
          col.data(), n, ep, 1);
  F32Col2Im c2i{};
  c2i.rank = 2;
  c2i.M = g.M;
  c2i.assign = true;
  const int64_t in[2] = {g.H, g.W};
  for (int i = 0; i < 2; ++i) {
    c2i.in[i] = in[i];
    c2i.kernel[i] = 2;
    c2i.stride[i] = 2;
    c2i.dilation[i] = 1;
    c2i.pad[i] = 0;
    c2i.out[i] = 2 * in[i];
  }
  std::vector<float> y(static_cast<size_t>(g.M * 4 * g.H * g.W));
  ScatterF32Col2Im(c2i, 0, g.H, col.data(), y.data());
  return y;
}

void ExpectSameBits(const F32ConvTranspose2x2Geometry& g, float x_scale, std::mt19937& gen) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(g.C * g.H * g.W)), w(static_cast<size_t>(g.C * g.M * 4)),
      bias(static_cast<size_t>(g.M));
  for (auto& v : x) v = d(gen) * x_scale;
  for (auto& v : w) v = d(gen);
  for (auto& v : bias) v = d(gen);
  for (bool with_bias : {false, true}) {
    const float* b = with_bias ? bias.data() : nullptr;
    const std::vector<float> want = GemmPath(g, w, b, x);
    std::vector<float> y(want.size(), -7.0f);
    const int64_t split = g.H / 2;  // two calls: rows [0, split) and [split, H)
    f32_conv_transpose_2x2_avx512(g, w.data(), b, x.data(), 0, split, y.data());
    f32_conv_transpose_2x2_avx512(g, w.data(), b, x.data(), split, g.H, y.data());
    ASSERT_EQ(std::memcmp(y.data(), want.data(), want.size() * sizeof(float)), 0)
        << "C=" << g.C << " H=" << g.H << " W=" << g.W << " M=" << g.M << " bias " << with_bias;
  }
}

TEST(F32ConvTranspose2x2, SameBitsAsGemmAndCol2im) {
  if (!F32ConvTranspose2x2Applies({24, 4, 16, 24})) GTEST_SKIP() << "no AVX-512";
  std::mt19937 gen(21);
  // det's two heads (24 -> 24, 24 -> 1), channel blocks of 8 and a rest, width tails, C = 1 and
  // the largest C.
  const F32ConvTranspose2x2Geometry cases[] = {
      {24, 5, 40, 24}, {24, 6, 37, 1}, {3, 4, 8, 13}, {1, 3, 23, 9}, {128, 2, 19, 5}, {17, 3, 64, 16}};
  for (const auto& g : cases) ExpectSameBits(g, 1.0f, gen);
  // Subnormal inputs are flushed as the GEMM flushes them.
  ExpectSameBits({8, 3, 20, 8}, 1e-38f, gen);
}

TEST(F32ConvTranspose2x2, TakesShortSumsAndRowsOfEightOrMore) {
  if (!F32ConvTranspose2x2Applies({24, 4, 16, 24})) GTEST_SKIP() << "no AVX-512";
  EXPECT_FALSE(F32ConvTranspose2x2Applies({129, 4, 16, 24}));
  EXPECT_FALSE(F32ConvTranspose2x2Applies({24, 4, 7, 24}));
  EXPECT_FALSE(F32ConvTranspose2x2Applies({24, 4, 16, 0}));
  EXPECT_TRUE(F32ConvTranspose2x2Applies({128, 1, 8, 1}));
}

}  // namespace
}  // namespace vt::kernels
