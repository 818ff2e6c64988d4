// BlockedFold / BlockedFoldColumns: long float32 sums against float64, exact folds (max, integer
// sums) unchanged by the blocking, sizes around the block edges, empty folds.
#include "ops/common/blocked_fold.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace vt::ops {
namespace {

const auto kAdd = [](auto a, auto b) { return a + b; };
const auto kSame = [](auto v) { return v; };

// Sizes around one block, the cascade's powers of two, and long rows.
const int64_t kSizes[] = {0,    1,    7,     17,    1023,      1024,     1025,
                          2048, 3073, 65537, 1 << 20, 3'000'001};

// Values with no cancellation: the rounding of long sums adds up instead of averaging out.
std::vector<float> Positive(int64_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(g);
  return v;
}

double SumF64(const float* x, int64_t n, int64_t stride = 1) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i * stride];
  return s;
}

TEST(BlockedFold, LongFloatSumsStayAccurate) {
  for (int64_t n : kSizes) {
    for (int data = 0; data < 2; ++data) {  // 0: constant 0.1 (biased rounding), 1: random
      const auto x = data == 0 ? std::vector<float>(static_cast<size_t>(n), 0.1f)
                               : Positive(n, static_cast<uint32_t>(n));
      const float got = BlockedFold<float>(x.data(), n, 0.0f, kSame, kAdd);
      const double want = SumF64(x.data(), n);
      EXPECT_LE(std::fabs(got - want), 2e-6 * want) << "n=" << n << " data=" << data;
    }
  }
}

TEST(BlockedSumF32, BitIdenticalToBlockedFold) {
  for (int64_t n : kSizes) {
    if (n > (1 << 20)) continue;
    std::mt19937 g(static_cast<uint32_t>(n) + 7);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(n));
    for (auto& v : x) v = d(g);
    for (int64_t len : {n, n > 0 ? n - 1 : 0, n / 3}) {
      const float want = BlockedFold<float>(x.data(), len, 0.0f, kSame, kAdd);
      EXPECT_EQ(std::bit_cast<uint32_t>(BlockedSumF32(x.data(), len)),
                std::bit_cast<uint32_t>(want))
          << "n=" << len;
    }
  }
  const float zeros[3] = {-0.0f, -0.0f, -0.0f};  // 0 + -0: the same +0 as the scalar fold
  EXPECT_EQ(std::bit_cast<uint32_t>(BlockedSumF32(zeros, 3)),
            std::bit_cast<uint32_t>(BlockedFold<float>(zeros, 3, 0.0f, kSame, kAdd)));
}

TEST(BlockedFoldColumns, LongFloatSumsStayAccurate) {
  for (int64_t rows : {0, 1, 63, 64, 65, 1000, 100'003}) {
    for (int64_t inner : {1, 3, 17}) {
      const auto x = Positive(rows * inner, static_cast<uint32_t>(rows + inner));
      std::vector<float> got(static_cast<size_t>(inner), -1.0f);
      BlockedFoldColumns<float>(x.data(), rows, inner, 0.0f, [](float v, int64_t) { return v; },
                                kAdd, got.data());
      for (int64_t i = 0; i < inner; ++i) {
        const double want = SumF64(x.data() + i, rows, inner);
        EXPECT_LE(std::fabs(got[static_cast<size_t>(i)] - want), 2e-6 * want)
            << "rows=" << rows << " inner=" << inner << " column " << i;
      }
    }
  }
}

// The map sees each element once, with its column.
TEST(BlockedFoldColumns, MapGetsTheColumn) {
  const int64_t rows = 300, inner = 5;
  const std::vector<float> x(static_cast<size_t>(rows * inner), 1.0f);
  std::vector<float> got(inner);
  BlockedFoldColumns<float>(x.data(), rows, inner, 0.0f,
                            [](float v, int64_t i) { return v * static_cast<float>(i); }, kAdd,
                            got.data());
  for (int64_t i = 0; i < inner; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], float(rows * i));
}

// Exact folds give what an unblocked fold gives: the maximum, and wrapping integer sums.
TEST(BlockedFold, ExactFoldsAreUnchanged) {
  for (int64_t n : kSizes) {
    const auto x = Positive(n, 99);
    float mx = -std::numeric_limits<float>::infinity();
    uint64_t isum = 0;
    for (float v : x) {
      mx = std::max(mx, v);
      isum += static_cast<uint64_t>(v * 1000.0f);
    }
    EXPECT_EQ(BlockedFold<float>(x.data(), n, -std::numeric_limits<float>::infinity(), kSame,
                                 [](float a, float b) { return std::max(a, b); }),
              mx)
        << "n=" << n;
    EXPECT_EQ(BlockedFold<uint64_t>(x.data(), n, uint64_t{0},
                                    [](float v) { return static_cast<uint64_t>(v * 1000.0f); },
                                    kAdd),
              isum)
        << "n=" << n;
  }
}

TEST(BlockedFold, EmptyFoldIsInit) {
  const float none[1] = {5.0f};
  EXPECT_EQ(BlockedFold<float>(none, 0, 1.0f, kSame, [](float a, float b) { return a * b; }), 1.0f);
  float out[2] = {7, 7};
  BlockedFoldColumns<float>(none, 0, 2, 3.0f, [](float v, int64_t) { return v; }, kAdd, out);
  EXPECT_EQ(out[0], 3.0f);
  EXPECT_EQ(out[1], 3.0f);
}

}  // namespace
}  // namespace vt::ops
