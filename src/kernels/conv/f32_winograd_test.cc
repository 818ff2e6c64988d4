// Winograd F(4x4, 3x3): the filter transform against its definition, every transform row
// against the scalar twin (bit for bit), and whole convolutions against a direct convolution in
// double within the bound docs/accuracy.md states, with pads, tails of tiles and of 16-tile
// groups, bias, clamp, a caller's epilogue and threads.
#include "kernels/conv/f32_winograd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ostream>
#include <random>
#include <vector>

namespace vt::kernels {

// gtest prints the row's name in test listings. Declared beside the row type's namespace.
void PrintTo(const F32WinogradKernel& row, std::ostream* os) { *os << row.name; }

namespace {

struct Case {
  int64_t C, H, W, PH, PW, PH_end, PW_end, M;
};

F32WinogradGeometry GeometryOf(const Case& k) {
  F32WinogradGeometry g;
  g.C = k.C, g.H = k.H, g.W = k.W, g.PH = k.PH, g.PW = k.PW;
  g.OH = k.H + k.PH + k.PH_end - 2;
  g.OW = k.W + k.PW + k.PW_end - 2;
  return g;
}

// Odd sizes: one tile, partial tiles, tile rows of more than one 16-tile group with a tail,
// pads of 0 to 3 on either side.
const Case kCases[] = {
    {1, 1, 1, 1, 1, 1, 1, 1},    {3, 5, 7, 1, 1, 1, 1, 5},     {16, 20, 20, 1, 1, 1, 1, 24},
    {17, 9, 70, 0, 2, 2, 0, 9},  {8, 33, 130, 2, 1, 0, 3, 8},  {5, 6, 6, 3, 3, 3, 3, 3},
    {24, 12, 66, 1, 1, 1, 1, 13}, {2, 3, 3, 0, 0, 0, 0, 2},
};

std::vector<float> Random(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// Direct convolution in double.
void DirectConv(const F32WinogradGeometry& g, int64_t M, const float* x, const float* w,
                const float* b, std::vector<double>* y) {
  y->assign(static_cast<size_t>(M * g.OH * g.OW), 0.0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t oh = 0; oh < g.OH; ++oh)
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        double s = b != nullptr ? b[m] : 0.0;
        for (int64_t c = 0; c < g.C; ++c)
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
              const int64_t r = oh + i - g.PH, col = ow + j - g.PW;
              if (r < 0 || r >= g.H || col < 0 || col >= g.W) continue;
              s += static_cast<double>(w[((m * g.C + c) * 3 + i) * 3 + j]) *
                   x[(c * g.H + r) * g.W + col];
            }
        (*y)[static_cast<size_t>((m * g.OH + oh) * g.OW + ow)] = s;
      }
}

std::vector<float> RunConv(const F32WinogradKernel& k, const F32WinogradGeometry& g, int64_t M,
                           const std::vector<float>& x, const std::vector<float>& w,
                           const float* bias, bool clamp, int threads) {
  const F32GemmKernel& gemm = F32GemmKernelForM(static_cast<size_t>(M));
  const std::vector<F32Panels> u =
      MakeF32WinogradFilterPanels(gemm.mr, w.data(), static_cast<size_t>(M),
                                  static_cast<size_t>(g.C));
  std::vector<float> y(static_cast<size_t>(M * g.OH * g.OW), -7.0f);
  F32WinogradConv c;
  c.geo = g;
  c.M = M;
  c.x = x.data();
  c.y = y.data();
  c.u = u.data();
  c.gemm = &gemm;
  c.epilogue.bias = bias;
  c.epilogue.clamp = clamp;
  c.epilogue.min = -0.5f;
  c.epilogue.max = 0.75f;
  RunF32WinogradConv(k, c, threads);
  return y;
}

class WinogradRowTest : public ::testing::TestWithParam<F32WinogradKernel> {};

TEST(WinogradFilterTest, TransformMatchesDefinition) {
  // A filter that is 1 at (i, j) transforms into the outer product of G's columns i and j.
  const double G[6][3] = {{0.25, 0, 0},          {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                          {-1.0 / 6, 1.0 / 6, -1.0 / 6}, {1.0 / 24, 1.0 / 12, 1.0 / 6},
                          {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      float g[9] = {};
      g[i * 3 + j] = 1.0f;
      float u[36];
      TransformF32WinogradFilters(g, 1, 1, u);
      for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b)
          EXPECT_EQ(u[a * 6 + b], static_cast<float>(G[a][i] * G[b][j])) << i << j << a << b;
    }
  // Layout [36, M, C]: (f, m, c) of a 2 x 3 filter bank.
  const std::vector<float> w = Random(2 * 3 * 9, 1);
  std::vector<float> u(36 * 6), one(36);
  TransformF32WinogradFilters(w.data(), 2, 3, u.data());
  for (int m = 0; m < 2; ++m)
    for (int c = 0; c < 3; ++c) {
      TransformF32WinogradFilters(w.data() + (m * 3 + c) * 9, 1, 1, one.data());
      for (int f = 0; f < 36; ++f) EXPECT_EQ(u[(f * 2 + m) * 3 + c], one[f]);
    }
}

TEST_P(WinogradRowTest, TransformsMatchScalarTwinBitForBit) {
  const F32WinogradKernel& k = GetParam();
  if (!k.supported()) GTEST_SKIP() << k.name << " not supported on this CPU";
  const F32WinogradKernel& ref = F32WinogradKernels().back();
  for (const Case& cs : kCases) {
    const F32WinogradGeometry g = GeometryOf(cs);
    const std::vector<float> x = Random(static_cast<size_t>(g.C * g.H * g.W), 7);
    // From the middle of the first tile row (where there is one) to the end.
    const int64_t t0 = g.TW() / 2, count = g.TH() * g.TW() - t0;
    const size_t ldv = static_cast<size_t>(count) + 3;
    const size_t vstride = F32WinogradFrequencyStride(static_cast<size_t>(g.C), ldv);
    std::vector<float> v1(36 * vstride, 0.0f), v2 = v1;
    std::vector<float> s1(F32WinogradScratchFloats(g)), s2 = s1;
    k.input(g, x.data(), t0, count, v1.data(), ldv, vstride, s1.data());
    ref.input(g, x.data(), t0, count, v2.data(), ldv, vstride, s2.data());
    ASSERT_EQ(std::memcmp(v1.data(), v2.data(), v1.size() * sizeof(float)), 0)
        << "input C=" << cs.C << " H=" << cs.H << " W=" << cs.W;
    const size_t mstride = F32WinogradFrequencyStride(static_cast<size_t>(cs.M), ldv);
    const std::vector<float> mf = Random(36 * mstride, 9, -4.0f, 4.0f);
    const std::vector<float> bias = Random(static_cast<size_t>(cs.M), 11);
    for (bool clamp : {false, true}) {
      F32WinogradEpilogue ep{bias.data(), clamp, -1.0f, 1.5f};
      std::vector<float> y1(static_cast<size_t>(cs.M * g.OH * g.OW), 3.0f), y2 = y1;
      k.output(g, cs.M, ep, mf.data(), ldv, mstride, t0, count, y1.data());
      ref.output(g, cs.M, ep, mf.data(), ldv, mstride, t0, count, y2.data());
      ASSERT_EQ(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)), 0)
          << "output C=" << cs.C << " H=" << cs.H << " W=" << cs.W << " clamp=" << clamp;
    }
  }
}

TEST_P(WinogradRowTest, ConvolutionMatchesDirectWithinBound) {
  const F32WinogradKernel& k = GetParam();
  if (!k.supported()) GTEST_SKIP() << k.name << " not supported on this CPU";
  for (const Case& cs : kCases) {
    const F32WinogradGeometry g = GeometryOf(cs);
    const std::vector<float> x = Random(static_cast<size_t>(g.C * g.H * g.W), 3);
    const std::vector<float> w = Random(static_cast<size_t>(cs.M * g.C * 9), 4);
    const std::vector<float> b = Random(static_cast<size_t>(cs.M), 5);
    std::vector<double> want;
    DirectConv(g, cs.M, x.data(), w.data(), b.data(), &want);
    const std::vector<float> got = RunConv(k, g, cs.M, x, w, b.data(), false, 1);
    // Scale of output channel m: max |x| * sum |w(m, ...)| + |b(m)| (max |x| is 1 here).
    std::vector<double> scale(static_cast<size_t>(cs.M), 0.0);
    for (int64_t m = 0; m < cs.M; ++m) {
      scale[static_cast<size_t>(m)] = std::fabs(b[static_cast<size_t>(m)]);
      for (int64_t i = 0; i < g.C * 9; ++i)
        scale[static_cast<size_t>(m)] += std::fabs(w[static_cast<size_t>(m * g.C * 9 + i)]);
    }
    double worst = 0.0;
    const size_t per_channel = static_cast<size_t>(g.OH * g.OW);
    for (size_t i = 0; i < got.size(); ++i)
      worst = std::max(worst, std::fabs(got[i] - want[i]) / scale[i / per_channel]);
    // docs/accuracy.md: |error| <= 1e-5 * (max |x| * sum |w(m, ...)| + |b(m)|); measured
    // up to 1.2e-6 on these cases.
    EXPECT_LE(worst, 1e-5) << "C=" << cs.C << " H=" << cs.H << " W=" << cs.W << " M=" << cs.M;
    const std::vector<float> clamped = RunConv(k, g, cs.M, x, w, b.data(), true, 1);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(clamped[i], std::min(std::max(got[i], -0.5f), 0.75f)) << i;
  }
}

TEST_P(WinogradRowTest, ThreadsGiveTheSameBits) {
  const F32WinogradKernel& k = GetParam();
  if (!k.supported()) GTEST_SKIP() << k.name << " not supported on this CPU";
  const Case cs{32, 70, 90, 1, 1, 1, 1, 16};  // several bands
  const F32WinogradGeometry g = GeometryOf(cs);
  const std::vector<float> x = Random(static_cast<size_t>(g.C * g.H * g.W), 21);
  const std::vector<float> w = Random(static_cast<size_t>(cs.M * g.C * 9), 22);
  const std::vector<float> one = RunConv(k, g, cs.M, x, w, nullptr, false, 1);
  const std::vector<float> two = RunConv(k, g, cs.M, x, w, nullptr, false, 2);
  ASSERT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)), 0);
}

TEST(WinogradDriverTest, TilesDoneCoversEveryOutputOnce) {
  const Case cs{32, 70, 90, 1, 1, 1, 1, 16};  // bands that end inside tile rows
  const F32WinogradGeometry g = GeometryOf(cs);
  const std::vector<float> x = Random(static_cast<size_t>(g.C * g.H * g.W), 31);
  const std::vector<float> w = Random(static_cast<size_t>(cs.M * g.C * 9), 32);
  const F32GemmKernel& gemm = F32GemmKernelForM(static_cast<size_t>(cs.M));
  const std::vector<F32Panels> u = MakeF32WinogradFilterPanels(gemm.mr, w.data(), 16, 32);
  std::vector<float> y(static_cast<size_t>(cs.M * g.OH * g.OW));
  struct Seen {
    F32WinogradGeometry g;
    std::vector<int> count;
  } seen{g, std::vector<int>(static_cast<size_t>(g.OH * g.OW), 0)};
  F32WinogradConv c;
  c.geo = g;
  c.M = cs.M;
  c.x = x.data();
  c.y = y.data();
  c.u = u.data();
  c.gemm = &gemm;
  c.tiles_ctx = &seen;
  c.tiles_done = [](const void* ctx, int64_t tr, int64_t tw0, int64_t tw1) {
    auto* s = static_cast<Seen*>(const_cast<void*>(ctx));
    for (int64_t r = 4 * tr; r < std::min(4 * tr + 4, s->g.OH); ++r)
      for (int64_t col = 4 * tw0; col < std::min(4 * tw1, s->g.OW); ++col)
        ++s->count[static_cast<size_t>(r * s->g.OW + col)];
  };
  RunF32WinogradConv(DefaultF32WinogradKernel(), c, 1);
  for (size_t i = 0; i < seen.count.size(); ++i) ASSERT_EQ(seen.count[i], 1) << i;
}

INSTANTIATE_TEST_SUITE_P(Rows, WinogradRowTest, ::testing::ValuesIn(F32WinogradKernels()));

}  // namespace
}  // namespace vt::kernels
