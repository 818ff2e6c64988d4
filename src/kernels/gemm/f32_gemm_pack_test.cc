// The streaming / threaded panel packers against their scalar reference twin, byte for byte,
// on odd sizes and every stride kind.
#include "kernels/gemm/f32_gemm_pack.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace vt::kernels {
namespace {

std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// Both packers write into NaN-filled buffers so a skipped element or tail cannot pass.
void ExpectSameBytes(size_t w, size_t kc, size_t nj, size_t sk, size_t sj, size_t src_floats,
                     bool threaded) {
  auto src = Random(src_floats, static_cast<unsigned>(w * 131 + kc * 7 + nj));
  const size_t stride = kc * w + 3;  // a panel stride past kc * w: the gap stays untouched
  const size_t n = (nj + w - 1) / w * stride;
  std::vector<float> want(n, NAN), got(n, NAN);
  PackF32PanelsReference(w, kc, nj, src.data(), sk, sj, want.data(), stride);
  if (threaded) PackF32PanelsThreaded(w, kc, nj, src.data(), sk, sj, got.data(), stride);
  else PackF32Panels(w, kc, nj, src.data(), sk, sj, got.data(), stride);
  ASSERT_EQ(std::memcmp(want.data(), got.data(), n * sizeof(float)), 0)
      << "w=" << w << " kc=" << kc << " nj=" << nj << " sk=" << sk << " sj=" << sj;
}

const size_t kWidths[] = {1, 4, 6, 8, 14, 16, 32, 48, 64};
const size_t kSizes[] = {1, 7, 17, 33, 257};

TEST(F32PanelPack, RowsContiguousMatchesReference) {  // B [K, N], A given as [K, M]
  for (size_t w : kWidths)
    for (size_t kc : kSizes)
      for (size_t nj : kSizes) {
        const size_t ld = nj + 5;
        ExpectSameBytes(w, kc, nj, ld, 1, kc * ld, false);
      }
}

TEST(F32PanelPack, LinesContiguousMatchesReference) {  // A [M, K], B given as [N, K]
  for (size_t w : kWidths)
    for (size_t kc : kSizes)
      for (size_t nj : kSizes) {
        const size_t ld = kc + 3;
        ExpectSameBytes(w, kc, nj, 1, ld, nj * ld, false);
      }
}

TEST(F32PanelPack, StridedBothWaysMatchesReference) {
  for (size_t w : {size_t{7}, size_t{16}})
    for (size_t kc : kSizes)
      for (size_t nj : {size_t{1}, size_t{17}, size_t{33}})
        ExpectSameBytes(w, kc, nj, 2, 2 * kc + 1, nj * (2 * kc + 1), false);
}

TEST(F32PanelPack, ThreadedIdenticalForEveryThreadCount) {
  // Large enough (>= 1 MiB per thread) that the threaded path really splits.
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3, 5}) {
    omp_set_num_threads(threads);
    ExpectSameBytes(32, 1025, 2049, 2049, 1, 1025 * 2049, true);   // Kn
    ExpectSameBytes(16, 1031, 1537, 1, 1031, 1537 * 1031, true);   // Nk
    ExpectSameBytes(48, 33, 257, 257, 1, 33 * 257, true);          // small: one thread
  }
  omp_set_num_threads(saved);
}

}  // namespace
}  // namespace vt::kernels
