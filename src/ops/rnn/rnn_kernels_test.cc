// The recurrent-cell building blocks against their scalar references on odd sizes.
#include "ops/rnn/rnn_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace vt::ops::rnn {
namespace {

TEST(RnnKernelsTest, GemmNTMatchesReference) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t M : {1, 2, 3}) {
    for (int64_t N : {1, 4, 7, 17, 33}) {
      for (int64_t K : {1, 7, 8, 17, 33, 257}) {
        const int64_t lda = K + 3, ldb = K + 1, ldc = N + 2;
        std::vector<float> a(static_cast<size_t>(M * lda)), b(static_cast<size_t>(N * ldb));
        for (float& v : a) v = u(rng);
        for (float& v : b) v = u(rng);
        for (bool acc : {false, true}) {
          std::vector<float> c(static_cast<size_t>(M * ldc), 0.5f);
          GemmNT(F32RowsFor(true), M, N, K, a.data(), lda, b.data(), ldb, c.data(), ldc, acc);
          for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
              double want = acc ? 0.5 : 0.0;
              for (int64_t k = 0; k < K; ++k)
                want += static_cast<double>(a[m * lda + k]) * b[n * ldb + k];
              ASSERT_NEAR(c[m * ldc + n], want, 1e-4 * (1 + std::sqrt(static_cast<double>(K))))
                  << "M=" << M << " N=" << N << " K=" << K << " acc=" << acc;
            }
          // Padding columns between rows of C stay untouched.
          for (int64_t m = 0; m < M; ++m) ASSERT_EQ(c[m * ldc + N], 0.5f);
        }
      }
    }
  }
}

TEST(RnnKernelsTest, SigmoidAndTanhAccuracy) {
  std::vector<float> xs;
  for (float x = -30; x <= 30; x += 0.0137f) xs.push_back(x);
  for (float x : {0.0f, -0.0f, 1e-8f, -1e-8f, 1e-3f, 0.2499f, 0.25f, 0.2501f, 88.0f, -88.0f,
                  100.0f, -100.0f, 1e30f, -1e30f})
    xs.push_back(x);
  for (size_t n : {xs.size(), size_t{1}, size_t{7}, size_t{9}}) {
    std::vector<float> s(xs.begin(), xs.begin() + static_cast<long>(n)), t = s;
    F32RowsFor(true).sigmoid(s.data(), static_cast<int64_t>(n));
    F32RowsFor(true).tanh(t.data(), static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i) {
      const float sr = SigmoidRef(xs[i]), tr = TanhRef(xs[i]);
      ASSERT_NEAR(s[i], sr, 1e-6f * std::fabs(sr) + 1e-37f) << "sigmoid(" << xs[i] << ")";
      ASSERT_NEAR(t[i], tr, 1e-6f * std::fabs(tr) + 1e-37f) << "tanh(" << xs[i] << ")";
    }
  }
}

// Both rows of the table (the session chooses by its level): the GEMM within float rounding of
// a double sum, the logistic and tanh within the approximations' error; the portable row is
// the one a baseline session gets.
TEST(RnnKernelsTest, EveryRowMatchesTheReferences) {
  EXPECT_STREQ(F32RowsFor(false).name, "portable");
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const F32Rows* rows : {&F32RowsFor(false), &F32RowsFor(true)}) {
    const int64_t M = 3, N = 9, K = 37;
    std::vector<float> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(N * K)),
        c(static_cast<size_t>(M * N));
    for (float& v : a) v = u(rng);
    for (float& v : b) v = u(rng);
    GemmNT(*rows, M, N, K, a.data(), K, b.data(), K, c.data(), N, false);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double want = 0;
        for (int64_t k = 0; k < K; ++k) want += static_cast<double>(a[m * K + k]) * b[n * K + k];
        EXPECT_NEAR(c[m * N + n], want, 1e-5) << rows->name;
      }
    std::vector<float> s(41), t(41);
    for (size_t i = 0; i < s.size(); ++i) s[i] = t[i] = -10.0f + 0.5f * static_cast<float>(i);
    const std::vector<float> x = s;
    rows->sigmoid(s.data(), static_cast<int64_t>(s.size()));
    rows->tanh(t.data(), static_cast<int64_t>(t.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(s[i], SigmoidRef(x[i]), 1e-6f) << rows->name << " x = " << x[i];
      EXPECT_NEAR(t[i], TanhRef(x[i]), 1e-6f) << rows->name << " x = " << x[i];
    }
  }
}

TEST(RnnKernelsTest, ExpApproximation) {
  for (float x = -80; x <= 80; x += 0.173f) {
    const double want = std::exp(static_cast<double>(x));
    ASSERT_NEAR(ExpF32Approx(x), want, 5e-7 * want) << x;
  }
}

TEST(RnnKernelsTest, ActivationParsingAndDefaults) {
  const float alphas[] = {0.3f};
  const float betas[] = {0.6f};
  size_t na = 0, nb = 0;
  auto hs = MakeActivation("hardsigmoid", alphas, 1, &na, betas, 1, &nb);
  ASSERT_TRUE(hs.ok());
  EXPECT_EQ(hs->alpha, 0.3f);
  EXPECT_EQ(hs->beta, 0.6f);
  // Lists exhausted: defaults.
  auto lr = MakeActivation("LeakyRelu", alphas, 1, &na, betas, 1, &nb);
  ASSERT_TRUE(lr.ok());
  EXPECT_FLOAT_EQ(lr->alpha, 0.01f);
  EXPECT_FALSE(MakeActivation("Swish", alphas, 1, &na, betas, 1, &nb).ok());
  std::vector<double> v = {-2, 0.5, 40};
  Activation sp;
  sp.kind = Activation::Kind::kSoftplus;
  Apply(F32RowsFor(true), sp, v.data(), 3);
  EXPECT_NEAR(v[0], std::log1p(std::exp(-2.0)), 1e-12);
  EXPECT_EQ(v[2], 40);  // no overflow for large inputs
}

}  // namespace
}  // namespace vt::ops::rnn
