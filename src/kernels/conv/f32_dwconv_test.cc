// Every depthwise table kernel against the scalar reference twin, and the phase-plane
// formulation against a direct 2-D depthwise convolution on odd geometries.
#include "kernels/conv/f32_dwconv.h"
#include "kernels/cpu/kernel_select.h"

#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "kernels/conv/f32_conv_pack.h"

namespace vt::kernels {

// gtest prints a test's parameter in test listings (ctest shows it): the row's name, not
// its bytes. Declared beside the row type's namespace so that gtest finds it.
void PrintTo(const F32DwConvKernel& row, std::ostream* os) { *os << row.name; }

namespace {

class DwConvTest : public ::testing::TestWithParam<F32DwConvKernel> {};

TEST_P(DwConvTest, MatchesReference) {
  const F32DwConvKernel& kr = GetParam();
  if (!kr.supported()) GTEST_SKIP() << kr.name << " not supported on this CPU";
  std::mt19937 g(7);
  std::uniform_real_distribution<float> d(-1, 1);
  for (size_t rows : {1, 3, 4, 9}) {
    for (size_t width : {1, 7, 16, 17, 33, 63, 64, 65, 129, 257}) {
      for (size_t taps : {1, 3, 9, 25}) {
        for (bool dense : {false, true}) {
          const size_t x_pitch = width + 5, y_pitch = width + 3;
          // Dense k x k grids take the register-blocked paths; the others perturb an offset.
          const size_t k = taps == 25 ? 5 : 3;
          std::vector<int64_t> off(taps);
          for (size_t t = 0; t < taps; ++t)
            off[t] = static_cast<int64_t>(2 + (t / k) * x_pitch + t % k +
                                          (!dense && t == 7 ? 11 : 0));
          std::vector<float> x((rows + 10) * x_pitch + 64), w(taps);  // room for every offset
          for (auto& v : x) v = d(g);
          for (auto& v : w) v = d(g);
          F32DwConvParams p{width, rows, x_pitch, y_pitch, taps, off.data(), w.data(), 0.25f};
          p.clamp = taps == 9;
          p.min = -0.5f;
          p.max = 0.5f;
          std::vector<float> got(rows * y_pitch, NAN), want(rows * y_pitch, NAN);
          kr.fn(&p, x.data(), got.data());
          f32_dwconv_multitap_scalar(&p, x.data(), want.data());
          for (size_t r = 0; r < rows; ++r) {
            for (size_t i = 0; i < width; ++i)
              ASSERT_NEAR(got[r * y_pitch + i], want[r * y_pitch + i], 1e-5f)
                  << kr.name << " rows=" << rows << " width=" << width << " taps=" << taps
                  << " dense=" << dense;
            for (size_t i = width; i < y_pitch; ++i)
              ASSERT_TRUE(std::isnan(got[r * y_pitch + i])) << "overrun";
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernels, DwConvTest,
                         ::testing::ValuesIn(F32DwConvKernels().begin(), F32DwConvKernels().end()),
                         [](const auto& info) { return std::string(info.param.name); });

// Phase planes + multitap == direct depthwise convolution.
// A session capped at an ISA gets the row of that level (or the next one down it can run).
TEST(DwConvRows, ASessionCapPicksItsLevel) {
  EXPECT_STREQ(F32DwConvKernelForIsa("portable").isa, "portable");
  const F32DwConvKernel& avx2 = F32DwConvKernelForIsa("avx2");
  EXPECT_STREQ(avx2.isa, CpuHasAvx2() ? "avx2" : "portable");
  const F32DwConvKernel& avx512 = F32DwConvKernelForIsa("avx512");
  EXPECT_STREQ(avx512.isa, CpuHasAvx512() ? "avx512" : avx2.isa);
}

TEST(DwConvPhasePlanes, MatchesDirect) {
  std::mt19937 g(9);
  std::uniform_real_distribution<float> d(-1, 1);
  const F32DwConvKernel& kr = DefaultF32DwConvKernel();
  for (int64_t H : {1, 5, 12})
    for (int64_t W : {3, 17, 40})
      for (int64_t K : {1, 3, 5})
        for (int64_t S : {1, 2, 3})
          for (int64_t SV : {1, 2})  // vertical stride (with S: (2, 1), (1, 2), ...)
          for (int64_t D : {1, 2})
            for (int64_t P : {0, 1, 2}) {
              const int64_t KH = H == 1 ? 1 : K, PH = H == 1 ? 0 : P;
              const int64_t SH = H == 1 ? 1 : SV;
              const int64_t OH = (H + 2 * PH - ((KH - 1) * D + 1)) / SH + 1;
              const int64_t OW = (W + 2 * P - ((K - 1) * D + 1)) / S + 1;
              if (OH <= 0 || OW <= 0 || H + 2 * PH < (KH - 1) * D + 1 ||
                  W + 2 * P < (K - 1) * D + 1)
                continue;
              std::vector<float> x(static_cast<size_t>(H * W)), w(static_cast<size_t>(KH * K));
              for (auto& v : x) v = d(g);
              for (auto& v : w) v = d(g);
              F32ConvPhasePlanes pl{};
              pl.C = 1;
              pl.KH = KH;
              pl.KW = K;
              pl.SH = SH;
              pl.SW = S;
              pl.DH = D;
              pl.DW = D;
              pl.Hq = OH + (KH - 1) * D / pl.SH;
              pl.Wq = OW + (K - 1) * D / S;
              std::vector<float> planes(F32ConvPhasePlanesFloats(1, pl.SH, pl.SW, pl.Hq, pl.Wq));
              BuildF32ConvPhasePlanes(x.data(), 1, H, W, PH, P, pl, planes.data());
              pl.planes = planes.data();
              std::vector<int64_t> off(static_cast<size_t>(KH * K));
              for (size_t t = 0; t < off.size(); ++t)
                off[t] = F32ConvPhasePlanesTapOffset(pl, t);
              std::vector<float> wide(static_cast<size_t>(OH * pl.Wq));
              F32DwConvParams p{static_cast<size_t>(pl.Wq), static_cast<size_t>(OH),
                                static_cast<size_t>(pl.Wq), static_cast<size_t>(pl.Wq),
                                off.size(), off.data(), w.data(), 0.5f};
              kr.fn(&p, planes.data(), wide.data());
              for (int64_t oh = 0; oh < OH; ++oh)
                for (int64_t ow = 0; ow < OW; ++ow) {
                  float want = 0.5f;
                  for (int64_t r = 0; r < KH; ++r)
                    for (int64_t s = 0; s < K; ++s) {
                      const int64_t ih = oh * pl.SH - PH + r * D, iw = ow * S - P + s * D;
                      if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                        want += w[r * K + s] * x[ih * W + iw];
                    }
                  ASSERT_NEAR(wide[oh * pl.Wq + ow], want, 1e-5f)
                      << "H=" << H << " W=" << W << " K=" << K << " S=" << S << " SH=" << SH
                      << " D=" << D
                      << " P=" << P;
                }
            }
}

// Every output position takes its taps in the same order whichever path computes it (the
// register-blocked dense and phased steps, their column tails, the row loop for the rows left
// over): a constant input with distinct tap weights and no padding gives bit-identical outputs.
TEST(DwConvPhasePlanes, ConstantInputGivesIdenticalOutputs) {
  std::mt19937 g(11);
  std::uniform_real_distribution<float> d(-1, 1);
  for (const F32DwConvKernel& kr : F32DwConvKernels()) {
    if (!kr.supported()) continue;
    for (int64_t K : {3, 5, 7})
      for (int64_t SH : {1, 2})
        for (int64_t SW : {1, 2}) {
          const int64_t H = 19, W = 45;
          const int64_t OH = (H - K) / SH + 1, OW = (W - K) / SW + 1;
          const std::vector<float> x(static_cast<size_t>(H * W), 0.7f);
          std::vector<float> w(static_cast<size_t>(K * K));
          for (auto& v : w) v = d(g);
          F32ConvPhasePlanes pl{};
          pl.C = 1;
          pl.KH = K;
          pl.KW = K;
          pl.SH = SH;
          pl.SW = SW;
          pl.DH = 1;
          pl.DW = 1;
          pl.Hq = OH + (K - 1) / SH;
          pl.Wq = OW + (K - 1) / SW;
          std::vector<float> planes(F32ConvPhasePlanesFloats(1, SH, SW, pl.Hq, pl.Wq));
          BuildF32ConvPhasePlanes(x.data(), 1, H, W, 0, 0, pl, planes.data());
          pl.planes = planes.data();
          std::vector<int64_t> off(static_cast<size_t>(K * K));
          for (size_t t = 0; t < off.size(); ++t) off[t] = F32ConvPhasePlanesTapOffset(pl, t);
          std::vector<float> wide(static_cast<size_t>(OH * pl.Wq));
          F32DwConvParams p{static_cast<size_t>(pl.Wq), static_cast<size_t>(OH),
                            static_cast<size_t>(pl.Wq), static_cast<size_t>(pl.Wq),
                            off.size(), off.data(), w.data(), 0.5f};
          kr.fn(&p, planes.data(), wide.data());
          for (int64_t oh = 0; oh < OH; ++oh)
            for (int64_t ow = 0; ow < OW; ++ow)
              ASSERT_EQ(wide[oh * pl.Wq + ow], wide[0])
                  << kr.name << " K=" << K << " SH=" << SH << " SW=" << SW << " at (" << oh << ", "
                  << ow << ")";
        }
  }
}

}  // namespace
}  // namespace vt::kernels
