// Per-channel int8 quantization panels against the scalar reference twin, byte for byte.
#include "kernels/int8/s8_per_channel_pack.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace vt::kernels {
namespace {

void ExpectSame(size_t nr, size_t K, size_t N, bool b_trans, bool specials) {
  std::mt19937 rng(static_cast<unsigned>(nr * 977 + K * 31 + N * 7 + b_trans));
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> b(K * N);
  for (auto& x : b) x = u(rng);
  if (specials && K * N >= 8) {  // NaN, infinity, an all-zero column, a rounding tie
    b[1] = std::numeric_limits<float>::quiet_NaN();
    b[2] = std::numeric_limits<float>::infinity();
    for (size_t k = 0; k < K; ++k) b[b_trans ? (N - 1) * K + k : k * N + N - 1] = 0.0f;
    b[3] = 0.5f;
  }
  const size_t qb = S8PerChannelPanelBytes(nr, K, N), ns = (N + nr - 1) / nr * nr;
  std::vector<int8_t> want_q(qb, 99), got_q(qb, 99);
  std::vector<float> want_s(ns, NAN), got_s(ns, NAN);
  QuantizeF32ToS8PerChannelPanelsReference(nr, K, N, b.data(), b_trans, want_q.data(),
                                           want_s.data());
  QuantizeF32ToS8PerChannelPanels(nr, K, N, b.data(), b_trans, got_q.data(), got_s.data());
  ASSERT_EQ(std::memcmp(want_q.data(), got_q.data(), qb), 0)
      << "nr=" << nr << " K=" << K << " N=" << N << " trans=" << b_trans;
  ASSERT_EQ(std::memcmp(want_s.data(), got_s.data(), ns * sizeof(float)), 0)
      << "nr=" << nr << " K=" << K << " N=" << N << " trans=" << b_trans;
}

TEST(S8PerChannelPack, MatchesReferenceOnOddSizes) {
  for (size_t nr : {1, 16, 32})
    for (size_t K : {1, 7, 17, 33, 257})
      for (size_t N : {1, 7, 17, 33, 257})
        for (bool t : {false, true}) ExpectSame(nr, K, N, t, true);
}

TEST(S8PerChannelPack, RoundsTiesToEvenLikeNearbyint) {
  // Every column has max |x| = 127, so its scale is exactly 1 and x / scale = x: exact ties.
  const float col[] = {127.0f, 0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 126.5f, -127.0f, 3.5f, -1.5f, 0.0f};
  const size_t K = sizeof col / sizeof col[0], N = 9, nr = 16;
  for (bool t : {false, true}) {
    std::vector<float> b(K * N);
    for (size_t k = 0; k < K; ++k)
      for (size_t n = 0; n < N; ++n) b[t ? n * K + k : k * N + n] = col[k];
    std::vector<int8_t> q(S8PerChannelPanelBytes(nr, K, N));
    std::vector<float> s(nr);
    QuantizeF32ToS8PerChannelPanels(nr, K, N, b.data(), t, q.data(), s.data());
    const int8_t want[] = {127, 0, 2, 2, 0, -2, 126, -127, 4, -2, 0};
    for (size_t n = 0; n < N; ++n) {
      ASSERT_EQ(s[n], 1.0f);
      for (size_t k = 0; k < K; ++k) ASSERT_EQ(q[k * nr + n], want[k]) << "k=" << k << " n=" << n;
    }
    ExpectSame(nr, K, N, t, false);
  }
}

TEST(S8PerChannelPack, IdenticalForEveryThreadCount) {
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3})
    for (bool t : {false, true}) {
      omp_set_num_threads(threads);
      ExpectSame(32, 1031, 2049, t, false);  // 2 MiB of panels: split over threads
    }
  omp_set_num_threads(saved);
}

}  // namespace
}  // namespace vt::kernels
