// Every small-M in-place row (f32_gemv.h) against its scalar twin bit for bit on odd sizes, the
// kKn rows against the packed-panel GEMM of the same ISA (the same bits), the kNk rows against a
// float64 dot product, and the driver's thread split.
#include "kernels/gemm/f32_gemv.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace vt::kernels {

// gtest prints a test's parameter in test listings (ctest shows it): the row's name, not
// its bytes. Declared beside the row type's namespace so that gtest finds it.
void PrintTo(const F32GemvKernel& row, std::ostream* os) { *os << row.name; }

namespace {

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

void ExpectBitIdentical(const std::vector<float>& got, const std::vector<float>& want,
                        const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i]))
        << what << " at " << i << ": " << got[i] << " != " << want[i];
}

// One GEMM: operands with padded leading dimensions, and an epilogue mode (0 plain, 1 alpha 0.5
// with a per-row bias, 2 accumulate into C, 3 both biases and a clamp).
struct Case {
  size_t m, n, k;
  int mode;
  size_t pad;  // extra elements per row of A, B and C
  F32GemvOrder order;
  std::vector<float> a, b, c, bias_m, bias_n;
  size_t lda, ldb, ldc;
  F32GemmEpilogue ep;

  Case(size_t m_, size_t n_, size_t k_, int mode_, size_t pad_, F32GemvOrder o, uint32_t seed)
      : m(m_), n(n_), k(k_), mode(mode_), pad(pad_), order(o) {
    lda = k + pad;
    ldb = (o == F32GemvOrder::kKn ? n : k) + pad;
    ldc = n + pad;
    a = Random(m * lda, seed);
    b = Random((o == F32GemvOrder::kKn ? k : n) * ldb, seed + 1);
    c = Random(m * ldc, seed + 2);
    bias_m = Random(m, seed + 3);
    bias_n = Random(n, seed + 4);
    ep.alpha = mode == 1 ? 0.5f : 1.0f;
    ep.accumulate = mode == 2;
    ep.bias_m = mode == 1 || mode == 3 ? bias_m.data() : nullptr;
    ep.bias_n = mode == 3 ? bias_n.data() : nullptr;
    ep.clamp = mode == 3;
    ep.min = -0.25f;
    ep.max = 0.5f;
  }
  std::string Name() const {
    return "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k) +
           " mode=" + std::to_string(mode) + " pad=" + std::to_string(pad);
  }
  // C after the row (columns [n0, n1) only).
  std::vector<float> Run(const F32GemvKernel& row, size_t n0, size_t n1) const {
    std::vector<float> out = c;
    row.fn(m, n0, n1, k, a.data(), lda, b.data(), ldb, out.data(), ldc, &ep);
    return out;
  }
  std::vector<float> Twin(F32GemmProducts products, size_t n0, size_t n1) const {
    std::vector<float> out = c;
    F32GemvReference(order, products, m, n0, n1, k, a.data(), lda, b.data(), ldb, out.data(), ldc,
                     &ep);
    return out;
  }
};

std::string RowName(const ::testing::TestParamInfo<F32GemvKernel>& info) { return info.param.name; }

class GemvRowTest : public ::testing::TestWithParam<F32GemvKernel> {};

TEST_P(GemvRowTest, MatchesTwinOnOddSizes) {
  const F32GemvKernel& row = GetParam();
  if (!row.supported()) GTEST_SKIP() << row.name << " not supported on this CPU";
  const size_t sizes[] = {1, 7, 17, 33, 257};
  uint32_t seed = 10;
  int mode = 0;
  for (size_t m = 1; m <= row.max_m; ++m)
    for (size_t n : sizes)
      for (size_t k : sizes) {
        seed += 7;
        const Case cs(m, n, k, mode++ % 4, (seed % 3 == 0) ? 3 : 0, row.order, seed);
        ExpectBitIdentical(cs.Run(row, 0, n), cs.Twin(row.products, 0, n), cs.Name());
      }
  // Long rows and columns, where the sum blocks, groups and lane chunks all turn over; 6161
  // columns are wider than the widest column band (4096), with a tail.
  for (size_t m = 1; m <= row.max_m; ++m)
    for (auto [n, k] : {std::pair<size_t, size_t>{4096, 33}, {33, 4096}, {7, 4096}, {4096, 1},
                        {6161, 600}}) {
      const Case cs(m, n, k, static_cast<int>(m % 4), m % 2, row.order, seed += 7);
      ExpectBitIdentical(cs.Run(row, 0, n), cs.Twin(row.products, 0, n), cs.Name());
    }
  for (size_t m : {size_t{1}, row.max_m}) {
    const Case cs(m, 4096, 4096, 1, 0, row.order, seed += 7);
    ExpectBitIdentical(cs.Run(row, 0, 4096), cs.Twin(row.products, 0, 4096), cs.Name());
  }
}

// A column range leaves every other column of C as it was.
TEST_P(GemvRowTest, WritesOnlyItsColumns) {
  const F32GemvKernel& row = GetParam();
  if (!row.supported()) GTEST_SKIP() << row.name << " not supported on this CPU";
  const Case cs(3, 1100, 257, 3, 5, row.order, 77);
  const std::vector<float> got = cs.Run(row, 64, 1091);
  ExpectBitIdentical(got, cs.Twin(row.products, 64, 1091), cs.Name());
  for (size_t i = 0; i < cs.m; ++i)
    for (size_t j = 0; j < cs.ldc; ++j)
      if (j < 64 || j >= 1091) {
        ASSERT_EQ(got[i * cs.ldc + j], cs.c[i * cs.ldc + j]) << "row " << i << " column " << j;
      }
}

// kKn rows read the source [K, N] as the packed-panel GEMM of their ISA reads its panels, in
// the same order: the same bits.
TEST_P(GemvRowTest, KnEqualsPackedPanels) {
  const F32GemvKernel& row = GetParam();
  if (!row.supported()) GTEST_SKIP() << row.name << " not supported on this CPU";
  if (row.order != F32GemvOrder::kKn) GTEST_SKIP() << "kNk sums in another order";
  const F32GemmKernel* first = nullptr;
  for (const auto& g : F32GemmKernels())
    if (first == nullptr && std::string(g.isa) == row.isa) first = &g;
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(first->products, row.products);
  uint32_t seed = 500;
  for (auto [m, n, k] : {std::tuple<size_t, size_t, size_t>{1, 4096, 4096}, {2, 257, 1100},
                         {5, 33, 2049}, {8, 1031, 513}, {4, 17, 7}}) {
    for (int mode = 0; mode < 4; ++mode) {
      const Case cs(m, n, k, mode, 0, F32GemvOrder::kKn, seed += 3);
      const F32Panels bp = MakeF32PanelsFromKn(first->nr, k, n, cs.b.data(), cs.ldb);
      std::vector<float> packed = cs.c;
      F32Gemm(F32GemmRowForM(*first, m), m, n, k, F32GemmA{F32GemmA::Kind::kMk, cs.a.data(), cs.lda},
              F32GemmB{F32GemmB::Kind::kPanels, nullptr, 0, &bp}, packed.data(), cs.ldc, cs.ep, 1);
      ExpectBitIdentical(cs.Run(row, 0, n), packed, cs.Name());
    }
  }
}

// kNk rows: within float32 rounding of a float64 dot product (docs/accuracy.md's bound for a
// sum of K terms of magnitude <= 1).
TEST_P(GemvRowTest, NkIsCloseToFloat64) {
  const F32GemvKernel& row = GetParam();
  if (!row.supported()) GTEST_SKIP() << row.name << " not supported on this CPU";
  if (row.order != F32GemvOrder::kNk) GTEST_SKIP() << "kKn is checked against the packed GEMM";
  for (auto [m, n, k] : {std::tuple<size_t, size_t, size_t>{1, 64, 4096}, {8, 33, 4099}, {3, 7, 33}}) {
    const Case cs(m, n, k, 0, 0, F32GemvOrder::kNk, 900);
    const std::vector<float> got = cs.Run(row, 0, n);
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j) {
        double want = 0;
        for (size_t kk = 0; kk < k; ++kk)
          want += static_cast<double>(cs.a[i * cs.lda + kk]) * cs.b[j * cs.ldb + kk];
        ASSERT_NEAR(got[i * cs.ldc + j], want, 2e-6 * static_cast<double>(k)) << cs.Name();
      }
  }
}

INSTANTIATE_TEST_SUITE_P(AllRows, GemvRowTest, ::testing::ValuesIn(F32GemvKernels().begin(),
                                                                    F32GemvKernels().end()),
                         RowName);

// The driver's column split does not change a bit.
TEST(F32GemvTest, ThreadCountDoesNotChangeBits) {
  for (const F32GemvKernel& row : F32GemvKernels()) {
    if (!row.supported()) continue;
    const Case cs(4, 1000, 700, 1, 0, row.order, 31);
    std::vector<float> one = cs.c, three = cs.c;
    F32Gemv(row, cs.m, cs.n, cs.k, cs.a.data(), cs.lda, cs.b.data(), cs.ldb, one.data(), cs.ldc,
            cs.ep, 1);
    F32Gemv(row, cs.m, cs.n, cs.k, cs.a.data(), cs.lda, cs.b.data(), cs.ldb, three.data(), cs.ldc,
            cs.ep, 3);
    ExpectBitIdentical(three, one, row.name);
    ExpectBitIdentical(one, cs.Twin(row.products, 0, cs.n), row.name);
  }
}

TEST(F32GemvTest, TableLookups) {
  for (F32GemvOrder o : {F32GemvOrder::kKn, F32GemvOrder::kNk})
    for (const char* isa : {"avx512", "avx2", "portable"}) {
      const F32GemvKernel* k = F32GemvRowForIsa(isa, o);
      ASSERT_NE(k, nullptr) << isa;
      EXPECT_EQ(k->order, o);
      EXPECT_EQ(FindF32GemvKernel(k->name), k);
    }
  EXPECT_EQ(F32GemvRowForIsa("avx512vnni", F32GemvOrder::kKn), nullptr);
  EXPECT_EQ(FindF32GemvKernel("f32_gemv_no_such_row"), nullptr);
}

}  // namespace
}  // namespace vt::kernels
