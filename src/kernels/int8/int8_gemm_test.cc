// Every int8 GEMM table kernel against its scalar reference twin (bit-exact) on odd tiles, the
// packers against their layout, and the blocked driver against a naive triple loop for u8 and
// s8 activations, zero points, int32 and dequantized f32 output, on odd sizes.
#include "kernels/int8/int8_gemm.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace vt::kernels {

// gtest prints a test's parameter in test listings (ctest shows it): the row's name, not
// its bytes. Declared beside the row type's namespace so that gtest finds it.
void PrintTo(const Int8GemmKernel& row, std::ostream* os) { *os << row.name; }

namespace {

template <typename T>
std::vector<T> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(std::numeric_limits<T>::min(),
                                       std::numeric_limits<T>::max());
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(g));
  return v;
}

std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

class Int8UkernelTest : public ::testing::TestWithParam<Int8GemmKernel> {};

TEST_P(Int8UkernelTest, MatchesReferenceOnOddTiles) {
  const Int8GemmKernel& kr = GetParam();
  if (!kr.supported()) GTEST_SKIP() << kr.name << " not supported on this CPU";
  const size_t MR = kr.mr, NR = kr.nr;
  for (size_t kg : {0, 1, 2, 7, 33, 129}) {
    // Extreme bytes included: 255 x -128 products must not saturate.
    auto a = RandomBytes<uint8_t>(kg * MR * 4 + 4, 10 + kg);
    auto b = RandomBytes<int8_t>(kg * NR * 4 + 4, 20 + kg);
    if (kg > 0) {
      std::fill(a.begin(), a.begin() + 4 * MR, uint8_t{255});
      std::fill(b.begin(), b.begin() + 4 * NR, int8_t{-128});
    }
    auto sums = RandomBytes<int16_t>(NR, 3);
    std::vector<int32_t> column_sums(sums.begin(), sums.end());
    auto scale_n = RandomFloats(NR, 4, 0.001f, 0.1f), bias_n = RandomFloats(NR, 5, -1, 1);
    for (size_t mr = 1; mr <= MR; ++mr) {
      for (size_t nc : {size_t{1}, size_t{7}, size_t{16}, size_t{17}, NR / 2 + 1, NR - 1, NR}) {
        if (nc > NR) continue;
        for (int mode = 0; mode < 4; ++mode) {
          const size_t c_stride = NR + 5;
          auto c0 = RandomBytes<int16_t>(MR * c_stride, 6);
          std::vector<int32_t> got(c0.begin(), c0.end()), want = got;
          Int8GemmTileParams p;
          p.accumulate = mode == 1;
          p.a_offset = mode == 2 ? 128 : 37;
          p.column_sums = mode == 0 ? nullptr : column_sums.data();
          p.dequantize = mode >= 2;
          p.scale_a = 0.03f;
          p.scale_n = scale_n.data();
          p.bias_n = mode == 3 ? bias_n.data() : nullptr;
          kr.ukernel(mr, nc, kg, a.data(), b.data(), got.data(), c_stride, &p);
          Int8GemmUkernelReference(MR, NR, mr, nc, kg, a.data(), b.data(), want.data(), c_stride,
                                   &p);
          // Bit-exact, including the untouched elements outside mr x nc.
          ASSERT_EQ(got, want) << kr.name << " kg=" << kg << " mr=" << mr << " nc=" << nc
                               << " mode=" << mode;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Int8GemmKernels, Int8UkernelTest,
                         ::testing::ValuesIn(Int8GemmKernels().begin(), Int8GemmKernels().end()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Int8GemmPack, KnAndNkGiveTheDocumentedLayout) {
  const size_t K = 11, N = 37, nr = 16, kg = 3;
  auto w = RandomBytes<int8_t>(K * N, 7);
  std::vector<int8_t> wt(N * K);
  for (size_t k = 0; k < K; ++k)
    for (size_t n = 0; n < N; ++n) wt[n * K + k] = w[k * N + n];
  const Int8Panels kn = MakeInt8PanelsFromKn(nr, K, N, w.data(), N);
  const Int8Panels nk = MakeInt8PanelsFromNk(nr, K, N, wt.data(), K);
  ASSERT_EQ(kn.size_bytes(), Int8VnniPanelsSize(nr, K, N));
  ASSERT_EQ(kn.size_bytes(), 3 * nr * (4 * kg + 4));
  EXPECT_EQ(0, std::memcmp(kn.data.get(), nk.data.get(), kn.size_bytes()));
  for (size_t p = 0; p < kn.num_panels(); ++p) {
    for (size_t j = 0; j < nr; ++j) {
      const size_t n = p * nr + j;
      int32_t sum = 0;
      for (size_t k = 0; k < 4 * kg; ++k) {
        const int8_t want = (k < K && n < N) ? w[k * N + n] : 0;
        ASSERT_EQ(kn.panel(p)[(k / 4 * nr + j) * 4 + k % 4], want) << "k=" << k << " n=" << n;
        sum += want;
      }
      EXPECT_EQ(kn.column_sums(p)[j], sum) << "n=" << n;
    }
  }
}

TEST(Int8GemmPack, S8ActivationsAreShiftedBy128) {
  const size_t M = 5, K = 6, mr = 4;
  auto a = RandomBytes<int8_t>(M * K, 8);
  std::vector<uint8_t> panels(Int8VnniActivationPanelsSize(mr, M, K));
  PackS8MkToVnniPanels(mr, M, K, a.data(), K, panels.data());
  for (size_t m = 0; m < 2 * mr; ++m)
    for (size_t k = 0; k < 8; ++k) {
      const uint8_t got = panels[(m / mr) * mr * 8 + ((k / 4) * mr + m % mr) * 4 + k % 4];
      const uint8_t want = (m < M && k < K) ? static_cast<uint8_t>(a[m * K + k] + 128) : 0;
      ASSERT_EQ(got, want) << "m=" << m << " k=" << k;
    }
}

struct DriverCase {
  size_t M, N, K;
  bool s8;
  int32_t zero_point;
  int threads;
};

void PrintTo(const DriverCase& c, std::ostream* os) {
  *os << "M=" << c.M << " N=" << c.N << " K=" << c.K << (c.s8 ? " s8" : " u8")
      << " zero_point=" << c.zero_point << " threads=" << c.threads;
}

class Int8GemmDriverTest : public ::testing::TestWithParam<DriverCase> {};

TEST_P(Int8GemmDriverTest, MatchesNaiveForEverySupportedKernel) {
  const DriverCase tc = GetParam();
  const size_t M = tc.M, N = tc.N, K = tc.K;
  auto w = RandomBytes<int8_t>(K * N, 9);
  auto a_u8 = RandomBytes<uint8_t>(M * K + 1, 10);
  auto a_s8 = RandomBytes<int8_t>(M * K + 1, 11);
  std::vector<int32_t> want(M * N);
  for (size_t m = 0; m < M; ++m)
    for (size_t n = 0; n < N; ++n) {
      int32_t s = 0;
      for (size_t k = 0; k < K; ++k) {
        const int32_t av = tc.s8 ? int32_t{a_s8[m * K + k]} : int32_t{a_u8[m * K + k]};
        s += (av - tc.zero_point) * int32_t{w[k * N + n]};
      }
      want[m * N + n] = s;
    }
  auto scale_n = RandomFloats(N, 12, 0.001f, 0.1f), bias_n = RandomFloats(N, 13, -1, 1);
  const float scale_a = 0.02f;
  Int8GemmA a;
  a.kind = tc.s8 ? Int8GemmA::Kind::kS8Mk : Int8GemmA::Kind::kU8Mk;
  a.data = tc.s8 ? static_cast<const void*>(a_s8.data()) : a_u8.data();
  a.ld = K;
  a.zero_point = tc.zero_point;
  for (const auto& kr : Int8GemmKernels()) {
    if (!kr.supported()) continue;
    const Int8Panels panels = MakeInt8PanelsFromKn(kr.nr, K, N, w.data(), N);
    const size_t ldc = N + 3;
    std::vector<int32_t> c(M * ldc, -7);
    Int8Gemm(kr, M, N, K, a, panels, c.data(), ldc, tc.threads);
    for (size_t m = 0; m < M; ++m)
      for (size_t n = 0; n < N; ++n)
        ASSERT_EQ(c[m * ldc + n], want[m * N + n]) << kr.name << " m=" << m << " n=" << n;
    for (size_t m = 0; m < M; ++m)
      for (size_t n = N; n < ldc; ++n) ASSERT_EQ(c[m * ldc + n], -7) << "padding written";

    std::vector<float> y(M * N);
    Int8Gemm(kr, M, N, K, a, panels, y.data(), N, {scale_a, scale_n.data(), bias_n.data()},
             tc.threads);
    for (size_t m = 0; m < M; ++m)
      for (size_t n = 0; n < N; ++n) {
        const float expect =
            static_cast<float>(want[m * N + n]) * (scale_a * scale_n[n]) + bias_n[n];
        ASSERT_EQ(y[m * N + n], expect) << kr.name << " dequantized m=" << m << " n=" << n;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Int8GemmOddSizes, Int8GemmDriverTest,
    ::testing::Values(DriverCase{1, 1, 1, false, 0, 1}, DriverCase{7, 17, 33, false, 3, 1},
                      DriverCase{17, 33, 7, true, 0, 1}, DriverCase{33, 257, 517, true, -5, 1},
                      DriverCase{13, 100, 1030, false, 128, 2}, DriverCase{3, 5, 0, true, 0, 1},
                      DriverCase{40, 49, 257, true, 0, 3},
                      // Past the K block (4096 groups): accumulation over two K blocks.
                      DriverCase{5, 60, 16390, true, 7, 1}, DriverCase{9, 50, 16390, false, 0, 2}));

// The portable row must stay selectable: forced by name it computes the same as the default.
TEST(Int8GemmTable, PortableRowIsLastAndFindable) {
  const auto rows = Int8GemmKernels();
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(&PortableInt8GemmKernel(), &rows.back());
  EXPECT_TRUE(PortableInt8GemmKernel().supported());
  EXPECT_EQ(FindInt8GemmKernel(PortableInt8GemmKernel().name), &PortableInt8GemmKernel());
  EXPECT_EQ(FindInt8GemmKernel("no_such_kernel"), nullptr);
  EXPECT_TRUE(DefaultInt8GemmKernel().supported());
}

}  // namespace
}  // namespace vt::kernels
