// MatMulNBits plane panels against the scalar reference twin, byte for byte.
#include "kernels/nbits/nbits_pack.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <random>
#include <vector>

namespace vt::kernels {
namespace {

void ExpectSame(size_t n, size_t cols, size_t unit) {
  std::mt19937 rng(static_cast<unsigned>(n * 131 + cols * 7 + unit));
  std::vector<uint8_t> src(n * cols * unit);
  for (auto& x : src) x = static_cast<uint8_t>(rng());
  const size_t bytes = NBitsPanelBytes(n, cols, unit);
  std::vector<uint8_t> want(bytes, 0xAB), got(bytes, 0xCD);
  PackNBitsRowsToPanelsReference(n, cols, unit, src.data(), want.data());
  PackNBitsRowsToPanels(n, cols, unit, src.data(), got.data());
  ASSERT_EQ(std::memcmp(want.data(), got.data(), bytes), 0)
      << "n=" << n << " cols=" << cols << " unit=" << unit;
}

TEST(NBitsPack, MatchesReferenceOnOddSizes) {
  for (size_t n : {1, 7, 17, 33, 257})
    for (size_t cols : {1, 7, 17, 33})
      for (size_t unit : {1, 2, 3, 4, 8, 16, 32}) ExpectSame(n, cols, unit);
}

TEST(NBitsPack, IdenticalForEveryThreadCount) {
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    ExpectSame(4099, 129, 16);  // 8 MiB: split over threads
  }
  omp_set_num_threads(saved);
}

}  // namespace
}  // namespace vt::kernels
