// q4 packers and the q4_0 scale search: packed bytes equal the layout presets' reference packer,
// both source orders agree, and the min-error search is deterministic and lowers the error.
#include "kernels/q4/q4_pack.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "vtensor/layout/encoding.h"
#include "vtensor/layout/layout_pack.h"
#include "vtensor/layout/layout_presets.h"

namespace vt::kernels {
namespace {

std::vector<float> Normal(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

std::vector<float> Transpose(const std::vector<float>& nk, size_t n, size_t k) {
  std::vector<float> kn(n * k);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < k; ++j) kn[j * n + i] = nk[i * k + j];
  return kn;
}

std::vector<uint8_t> LayoutPack(const std::vector<float>& nk, size_t n, size_t k, Encoding e,
                                size_t rows) {
  auto l = BlockQuantizedWeight(static_cast<int64_t>(n), static_cast<int64_t>(k), e,
                                BlockOrder::kInputBlockMajor, static_cast<int64_t>(rows));
  EXPECT_TRUE(l.ok());
  auto bytes = PackFloats(nk.data(), *l);
  EXPECT_TRUE(bytes.ok());
  return *bytes;
}

// The presets clamp the panel height to N (rows > N) and reject rows == 1, so the comparison
// covers 2 <= rows <= N; the kernels' packed form keeps full `rows` panels when N < rows.
TEST(Q4PackTest, Q4_0AmaxBytesEqualLayoutPackFloats) {
  for (size_t rows : {2, 8, 16})
    for (auto [n, k] : {std::pair<size_t, size_t>{37, 100}, {16, 64}, {17, 33}, {16, 1}}) {
      SCOPED_TRACE(testing::Message() << "rows=" << rows << " n=" << n << " k=" << k);
      const std::vector<float> w = Normal(n * k, static_cast<unsigned>(n + k));
      const std::vector<uint8_t> want = LayoutPack(w, n, k, Encoding::kQ4_0, rows);
      std::vector<uint8_t> nk(Q4_0PackedBytes(n, k, rows), 0xAB), kn(nk.size(), 0xCD);
      ASSERT_EQ(nk.size(), want.size());
      PackF32NkToQ4_0Panels(n, k, w.data(), k, rows, Q4ScaleSearch::kAmax, nk.data());
      const std::vector<float> wt = Transpose(w, n, k);
      PackF32KnToQ4_0Panels(k, n, wt.data(), n, rows, Q4ScaleSearch::kAmax, kn.data(), 2);
      EXPECT_EQ(nk, want);
      EXPECT_EQ(kn, want);
    }
}

TEST(Q4PackTest, Q4_KBytesEqualLayoutPackFloats) {
  for (size_t rows : {8, 16})
    for (auto [n, k] : {std::pair<size_t, size_t>{19, 300}, {16, 512}, {33, 33}}) {
      SCOPED_TRACE(testing::Message() << "rows=" << rows << " n=" << n << " k=" << k);
      const std::vector<float> w = Normal(n * k, static_cast<unsigned>(3 * n + k));
      const std::vector<uint8_t> want = LayoutPack(w, n, k, Encoding::kQ4_K, rows);
      std::vector<uint8_t> nk(Q4_KPackedBytes(n, k, rows), 0xAB), kn(nk.size(), 0xCD);
      ASSERT_EQ(nk.size(), want.size());
      PackF32NkToQ4_KPanels(n, k, w.data(), k, rows, nk.data());
      const std::vector<float> wt = Transpose(w, n, k);
      PackF32KnToQ4_KPanels(k, n, wt.data(), n, rows, kn.data(), 2);
      EXPECT_EQ(nk, want);
      EXPECT_EQ(kn, want);
    }
}

// Block (n, kb) sits where Layout::Locate puts logical element (n, 32 kb): the addressing
// itself, independent of how either side quantizes.
TEST(Q4PackTest, Q4_0MinErrorBlocksSitWhereLayoutLocatesThem) {
  const size_t n = 21, k = 70, rows = 8;
  const std::vector<float> w = Normal(n * k, 9);
  std::vector<uint8_t> packed(Q4_0PackedBytes(n, k, rows));
  PackF32NkToQ4_0Panels(n, k, w.data(), k, rows, Q4ScaleSearch::kMinError, packed.data());
  const Layout l = BlockQuantizedWeight(n, k, Encoding::kQ4_0, BlockOrder::kInputBlockMajor, rows)
                       .value();
  for (size_t i = 0; i < n; ++i)
    for (size_t kb = 0; kb * 32 < k; ++kb) {
      const int64_t idx[2] = {static_cast<int64_t>(i), static_cast<int64_t>(kb * 32)};
      const ByteAddress a = l.Locate(idx);
      float block[32] = {};
      for (size_t j = 0; j < 32 && kb * 32 + j < k; ++j) block[j] = w[i * k + kb * 32 + j];
      uint8_t want[18];
      QuantizeQ4_0Block(block, Q4ScaleSearch::kMinError, want);
      ASSERT_EQ(std::vector<uint8_t>(packed.begin() + a.byte, packed.begin() + a.byte + 18),
                std::vector<uint8_t>(want, want + 18))
          << i << "," << kb;
    }
}

TEST(Q4PackTest, MinErrorIsDeterministicAndThreadIndependent) {
  const size_t n = 50, k = 200, rows = 16;
  const std::vector<float> w = Normal(n * k, 17);
  std::vector<uint8_t> a(Q4_0PackedBytes(n, k, rows)), b(a.size()), c(a.size());
  PackF32NkToQ4_0Panels(n, k, w.data(), k, rows, Q4ScaleSearch::kMinError, a.data(), 1);
  PackF32NkToQ4_0Panels(n, k, w.data(), k, rows, Q4ScaleSearch::kMinError, b.data(), 1);
  PackF32NkToQ4_0Panels(n, k, w.data(), k, rows, Q4ScaleSearch::kMinError, c.data(), 2);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

TEST(Q4PackTest, MinErrorNeverWorseAndLowersRmsError) {
  const size_t blocks = 4096;
  const std::vector<float> x = Normal(blocks * 32, 23);
  double sse_amax = 0, sse_min = 0;
  size_t improved = 0;
  for (size_t b = 0; b < blocks; ++b) {
    uint8_t qa[18], qm[18];
    QuantizeQ4_0Block(&x[b * 32], Q4ScaleSearch::kAmax, qa);
    QuantizeQ4_0Block(&x[b * 32], Q4ScaleSearch::kMinError, qm);
    const double ea = Q4_0BlockSquaredError(&x[b * 32], qa);
    const double em = Q4_0BlockSquaredError(&x[b * 32], qm);
    ASSERT_LE(em, ea) << "block " << b;
    improved += em < ea;
    sse_amax += ea;
    sse_min += em;
  }
  const double rms_amax = std::sqrt(sse_amax / (blocks * 32));
  const double rms_min = std::sqrt(sse_min / (blocks * 32));
  std::printf("q4_0 RMS error on N(0,1): amax %.5f, min-error %.5f (%.1f%% lower), %zu/%zu "
              "blocks improved\n",
              rms_amax, rms_min, 100.0 * (1 - rms_min / rms_amax), improved, blocks);
  EXPECT_LT(rms_min, rms_amax * 0.97);  // a real reduction, not a rounding artefact
}

TEST(Q4PackTest, ZeroAndConstantBlocks) {
  float zeros[32] = {}, ones[32];
  for (float& v : ones) v = 0.5f;
  for (Q4ScaleSearch s : {Q4ScaleSearch::kAmax, Q4ScaleSearch::kMinError}) {
    uint8_t q[18];
    QuantizeQ4_0Block(zeros, s, q);
    EXPECT_EQ(Q4_0BlockSquaredError(zeros, q), 0.0);
    QuantizeQ4_0Block(ones, s, q);
    EXPECT_EQ(Q4_0BlockSquaredError(ones, q), 0.0);  // 0.5 = (-0.0625) * (0 - 8) exactly
  }
}

}  // namespace
}  // namespace vt::kernels
