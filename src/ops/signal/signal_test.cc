// DFT / STFT against a direct O(n^2) sum on power-of-two, short odd and long odd (Bluestein)
// lengths; window functions and MelWeightMatrix against their formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::F32;
using testing::I64;
using testing::MakeTensor;
using testing::OpCall;
using testing::Values;

std::vector<std::complex<double>> NaiveDft(const std::vector<std::complex<double>>& x, int sign) {
  const size_t n = x.size();
  std::vector<std::complex<double>> y(n);
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < n; ++j)
      y[k] += x[j] * std::polar(1.0, sign * 2 * std::numbers::pi * double(j * k % n) / double(n));
  return y;
}

TEST(DftTest, MatchesDirectSumOnManyLengths) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t n : {1, 2, 7, 16, 17, 33, 64, 65, 100, 257}) {
    for (bool complex_in : {false, true}) {
      std::vector<double> v(static_cast<size_t>(n * (complex_in ? 2 : 1)));
      for (double& e : v) e = u(rng);
      std::vector<std::complex<double>> x(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j)
        x[j] = complex_in ? std::complex<double>(v[2 * j], v[2 * j + 1]) : v[j];
      for (bool inverse : {false, true}) {
        OpCall c{"DFT", 17, {AttrInt("inverse", inverse)},
                 {MakeTensor(DType::kFloat64, {1, n, complex_in ? 2 : 1}, v)}};
        auto r = c.Run();
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        auto want = NaiveDft(x, inverse ? 1 : -1);
        auto got = Values((*r)[0].tensor());
        ASSERT_EQ(got.size(), static_cast<size_t>(2 * n));
        for (int64_t k = 0; k < n; ++k) {
          auto w = want[k] / (inverse ? double(n) : 1.0);
          ASSERT_NEAR(got[2 * k], w.real(), 1e-9 * n) << "n=" << n << " k=" << k;
          ASSERT_NEAR(got[2 * k + 1], w.imag(), 1e-9 * n) << "n=" << n << " k=" << k;
        }
      }
    }
  }
}

TEST(DftTest, OnesidedPaddingAxisAndErrors) {
  // x [1, 3, 2, 1]: transform along axis 2 padded to 4, onesided -> 3 bins.
  Tensor x = F32({1, 3, 2, 1}, {1, 2, 3, 4, 5, 6});
  OpCall c{"DFT", 17, {AttrInt("axis", 2), AttrInt("onesided", 1)}, {x, I64({}, {4})}};
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({1, 3, 3, 2}));
  auto v = Values((*r)[0].tensor());
  // Row [1, 2, 0, 0]: X0 = 3, X1 = 1 - 2i, X2 = -1.
  EXPECT_NEAR(v[0], 3, 1e-6);
  EXPECT_NEAR(v[2], 1, 1e-6);
  EXPECT_NEAR(v[3], -2, 1e-6);
  EXPECT_NEAR(v[4], -1, 1e-6);
  c.attrs = {AttrInt("axis", 3)};
  EXPECT_FALSE(c.Run().ok());  // the trailing complex axis is not a signal axis
  OpCall bad_len{"DFT", 17, {}, {x, I64({}, {0})}};
  EXPECT_FALSE(bad_len.Run().ok());
  OpCall bad_last{"DFT", 17, {}, {F32({1, 2, 3}, {1, 2, 3, 4, 5, 6})}};
  EXPECT_FALSE(bad_last.Run().ok());
}

TEST(DftTest, Irfft20RoundTripAndHermitianSum) {
  // Opset 20: RFFT then IRFFT (onesided=1, inverse=1) gives the real signal back, for odd and
  // even lengths, along a middle axis of [2, n, 3, 1].
  for (int64_t n : {1, 7, 16, 17, 33}) {
    std::vector<double> sig(static_cast<size_t>(2 * n * 3));
    for (size_t i = 0; i < sig.size(); ++i) sig[i] = std::sin(0.61 * i) + 0.25 * std::cos(1.7 * i);
    const Tensor x = MakeTensor(DType::kFloat64, {2, n, 3, 1}, sig);
    OpCall fwd{"DFT", 20, {AttrInt("onesided", 1)}, {x, Tensor(), I64({}, {1})}, {false, true, false}};
    const Tensor spec = testing::RunOne(fwd);
    ASSERT_EQ(spec.shape(), Shape({2, n / 2 + 1, 3, 2}));
    OpCall inv{"DFT", 20, {AttrInt("onesided", 1), AttrInt("inverse", 1)}, {spec, I64({}, {static_cast<double>(n)}), I64({}, {-3})}};
    const Tensor back = testing::RunOne(inv);
    ASSERT_EQ(back.shape(), Shape({2, n, 3, 1}));
    const std::vector<double> got = Values(back);
    for (size_t i = 0; i < sig.size(); ++i) ASSERT_NEAR(got[i], sig[i], 1e-12) << "n=" << n;
  }
  // Default dft_length 2 * (m - 1); the imaginary parts of bins 0 and n/2 do not contribute:
  // x[t] = (Re X0 + 2 sum_{0<k<n/2} Re(X_k e^{2 pi i k t / n}) + Re X_{n/2} (-1)^t) / n.
  const std::vector<double> bins = {1.5, 9, 0.25, -1, -2, 0.5, 3, 0.75, 0.5, -7};  // 5 bins
  OpCall c{"DFT", 20, {AttrInt("onesided", 1), AttrInt("inverse", 1)}, {MakeTensor(DType::kFloat64, {1, 5, 2}, bins)}};
  const Tensor y = testing::RunOne(c);
  ASSERT_EQ(y.shape(), Shape({1, 8, 1}));
  const std::vector<double> got = Values(y);
  for (int t = 0; t < 8; ++t) {
    double want = bins[0] + bins[8] * (t % 2 ? -1 : 1);
    for (int k = 1; k < 4; ++k)
      want += 2 * (std::complex<double>(bins[2 * k], bins[2 * k + 1]) *
                   std::polar(1.0, 2 * std::numbers::pi * k * t / 8)).real();
    EXPECT_NEAR(got[static_cast<size_t>(t)], want / 8, 1e-12) << "t=" << t;
  }
  OpCall real_in{"DFT", 20, {AttrInt("onesided", 1), AttrInt("inverse", 1)}, {F32({1, 4, 1}, {1, 2, 3, 4})}};
  auto r = real_in.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("must be complex (last dim 2) for the inverse one-sided DFT"),
            std::string::npos) << r.status().ToString();
}

TEST(StftTest, FramesWindowAndBins) {
  std::vector<double> sig(10);
  for (int i = 0; i < 10; ++i) sig[i] = std::sin(i * 0.7);
  Tensor win = F32({4}, {0.5, 1, 1, 0.5});
  OpCall c{"STFT", 17, {}, {F32({1, 10, 1}, sig), I64({}, {3}), win}};
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({1, 3, 3, 2}));
  auto got = Values((*r)[0].tensor());
  for (int f = 0; f < 3; ++f) {
    std::vector<std::complex<double>> frame(4);
    for (int j = 0; j < 4; ++j) frame[j] = static_cast<float>(sig[f * 3 + j]) * win.GetDouble(j);
    auto want = NaiveDft(frame, -1);
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(got[(f * 3 + k) * 2], want[k].real(), 1e-5);
      EXPECT_NEAR(got[(f * 3 + k) * 2 + 1], want[k].imag(), 1e-5);
    }
  }
  OpCall mismatch{"STFT", 17, {}, {F32({1, 10, 1}, sig), I64({}, {3}), win, I64({}, {5})}};
  EXPECT_FALSE(mismatch.Run().ok());
  OpCall too_long{"STFT", 17, {}, {F32({1, 10, 1}, sig), I64({}, {3}), Tensor(), I64({}, {11})},
                  {false, false, true, false}};
  EXPECT_FALSE(too_long.Run().ok());
}

TEST(WindowTest, FormulasPeriodicAndSymmetric) {
  for (int periodic : {0, 1}) {
    OpCall c{"HannWindow", 17, {AttrInt("periodic", periodic), AttrInt("output_datatype", 11)},
             {I64({}, {8})}};
    auto r = c.Run();
    ASSERT_TRUE(r.ok());
    EXPECT_EQ((*r)[0].tensor().dtype(), DType::kFloat64);
    auto v = Values((*r)[0].tensor());
    const double n = periodic ? 8 : 7;
    for (int i = 0; i < 8; ++i)
      EXPECT_NEAR(v[i], 0.5 - 0.5 * std::cos(2 * std::numbers::pi * i / n), 1e-12);
  }
  OpCall b{"BlackmanWindow", 17, {}, {I64({}, {5})}};
  auto r = b.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(Values((*r)[0].tensor())[0], 0.0, 1e-7);
  OpCall h{"HammingWindow", 17, {AttrInt("periodic", 0)}, {I64({}, {1})}};
  r = h.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({1}));
  OpCall neg{"HannWindow", 17, {}, {I64({}, {-1})}};
  EXPECT_FALSE(neg.Run().ok());
}

TEST(MelWeightMatrixTest, TrianglesPeakAtOne) {
  OpCall c{"MelWeightMatrix", 17, {},
           {I64({}, {4}), I64({}, {64}), I64({}, {8000}), F32({}, {0}), F32({}, {4000})}};
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Tensor& t = (*r)[0].tensor();
  EXPECT_EQ(t.shape(), Shape({33, 4}));
  for (int m = 0; m < 4; ++m) {
    double peak = 0;
    for (int k = 0; k < 33; ++k) {
      const double w = t.GetDouble(k * 4 + m);
      EXPECT_GE(w, 0);
      EXPECT_LE(w, 1);
      peak = std::max(peak, w);
    }
    EXPECT_EQ(peak, 1.0) << "band " << m;
  }
  c.inputs[4] = F32({}, {-5});
  EXPECT_FALSE(c.Run().ok());
}

}  // namespace
}  // namespace vt::ops
