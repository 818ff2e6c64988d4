// Tap-major conv filter panels against their scalar reference twin, byte for byte.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/conv/f32_conv_pack.h"
#include "kernels/gemm/f32_gemm_pack.h"

namespace vt::kernels {
namespace {

void ExpectSame(size_t mr, size_t M, size_t C, size_t taps) {
  std::mt19937 rng(static_cast<unsigned>(mr * 1000 + M * 31 + C * 7 + taps));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> w(M * C * taps);
  for (auto& x : w) x = u(rng);
  const size_t n = F32PanelsSize(mr, C * taps, M);
  std::vector<float> want(n, NAN), got(n, NAN);
  PackF32ConvFiltersTapMajorToPanelsMrReference(mr, M, C, taps, w.data(), want.data());
  PackF32ConvFiltersTapMajorToPanelsMr(mr, M, C, taps, w.data(), got.data());
  ASSERT_EQ(std::memcmp(want.data(), got.data(), n * sizeof(float)), 0)
      << "mr=" << mr << " M=" << M << " C=" << C << " taps=" << taps;
}

TEST(F32ConvFilterPack, TapMajorMatchesReferenceOnOddSizes) {
  for (size_t mr : {1, 6, 8, 14})
    for (size_t M : {1, 7, 17, 33})
      for (size_t C : {1, 7, 17})
        for (size_t taps : {1, 3, 9, 25}) ExpectSame(mr, M, C, taps);
}

TEST(F32ConvFilterPack, TapMajorIdenticalForEveryThreadCount) {
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    ExpectSame(8, 257, 129, 9);  // 4.7 MiB of panels: split over threads
  }
  omp_set_num_threads(saved);
}

}  // namespace
}  // namespace vt::kernels
