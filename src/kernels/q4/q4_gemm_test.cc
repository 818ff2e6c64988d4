// q4_0 / q4_k decode GEMM: every table row against the reference twin on odd sizes, the
// driver's thread-count independence, and the packed bytes against the layout presets.
#include "kernels/q4/q4_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "vtensor/layout/dtype.h"
#include "vtensor/layout/encoding.h"

namespace vt::kernels {
namespace {

struct Family {
  Encoding enc;
  size_t block_elems, block_bytes;
  std::span<const Q4GemmKernel> (*table)();
  const Q4GemmKernel& (*portable)();
  void (*reference)(size_t, size_t, size_t, size_t, const float*, size_t, const uint8_t*,
                    const float*, float*, size_t);
  void (*gemm)(const Q4GemmKernel&, size_t, size_t, size_t, const float*, size_t,
               const uint8_t*, const float*, float*, size_t, int);
};

const Family kQ4_0{Encoding::kQ4_0, 32, 18, Q4_0GemmKernels, PortableQ4_0GemmKernel,
                   Q4_0GemmReference, Q4_0Gemm};
const Family kQ4_K{Encoding::kQ4_K, 256, 144, Q4_KGemmKernels, PortableQ4_KGemmKernel,
                   Q4_KGemmReference, Q4_KGemm};

std::vector<float> Normal(size_t n, unsigned seed, float sigma = 1.0f) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, sigma);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

std::vector<uint8_t> Pack(const Family& f, size_t n, size_t k, const std::vector<float>& w_nk,
                          size_t rows) {
  const size_t bytes = f.enc == Encoding::kQ4_0 ? Q4_0PackedBytes(n, k, rows)
                                                : Q4_KPackedBytes(n, k, rows);
  std::vector<uint8_t> out(bytes, 0xAB);
  if (f.enc == Encoding::kQ4_0)
    PackF32NkToQ4_0Panels(n, k, w_nk.data(), k, rows, Q4ScaleSearch::kAmax, out.data());
  else
    PackF32NkToQ4_KPanels(n, k, w_nk.data(), k, rows, out.data());
  return out;
}

// Runs `kernel` through the driver and compares every element with the reference twin run
// panel by panel on zero-padded activations, within the bound of q4_ukernel.h.
void CheckKernel(const Family& f, const Q4GemmKernel& kernel, size_t M, size_t N, size_t K,
                 bool with_bias) {
  SCOPED_TRACE(std::string(kernel.name) + " M=" + std::to_string(M) + " N=" + std::to_string(N) +
               " K=" + std::to_string(K));
  const std::vector<float> w = Normal(N * K, 7 + static_cast<unsigned>(N * 131 + K));
  const std::vector<float> bias = Normal(N, 3);
  const size_t ldx = K + 3, ldy = N + 5;
  std::vector<float> x = Normal(M * ldx, 11 + static_cast<unsigned>(M));
  const std::vector<uint8_t> packed = Pack(f, N, K, w, kernel.rows);
  std::vector<float> y(M * ldy, -1234.5f);
  f.gemm(kernel, M, N, K, x.data(), ldx, packed.data(), with_bias ? bias.data() : nullptr,
         y.data(), ldy, 1);

  const size_t kb = (K + f.block_elems - 1) / f.block_elems, kp = kb * f.block_elems;
  std::vector<float> xp(M * kp, 0.0f), xabs(M * kp, 0.0f);
  for (size_t m = 0; m < M; ++m)
    for (size_t k = 0; k < K; ++k) {
      xp[m * kp + k] = x[m * ldx + k];
      xabs[m * kp + k] = std::fabs(x[m * ldx + k]);
    }
  // Decoded weights W(n, k) (n < N, k < kp) for the error bound.
  std::vector<float> wq(N * kp);
  const EncodingTraits& t = GetEncodingTraits(f.enc);
  for (size_t n = 0; n < N; ++n)
    for (size_t b = 0; b < kb; ++b) {
      const size_t panel = n / kernel.rows, r = n % kernel.rows;
      t.to_float(packed.data() + ((panel * kb + b) * kernel.rows + r) * f.block_bytes,
                 &wq[n * kp + b * f.block_elems], static_cast<int64_t>(f.block_elems));
    }
  // q8 rows: the activations as the twin quantizes them (q4_ukernel.h).
  const bool q8 = kernel.quantize_x != nullptr;
  std::vector<Q4Q8Block> xq(q8 ? M * kb : 0);
  if (q8) Q4_0QuantizeXQ8Reference(M, K, x.data(), ldx, xq.data());
  for (size_t m = 0; m < M; ++m)
    for (size_t n0 = 0; n0 < N; n0 += kernel.rows) {
      const size_t nc = std::min(kernel.rows, N - n0);
      const uint8_t* panel = packed.data() + n0 / kernel.rows * kb * kernel.rows * f.block_bytes;
      std::vector<float> ref(nc), ref_q8(nc);
      f.reference(kernel.rows, 1, nc, kb, &xp[m * kp], kp, panel,
                  with_bias ? bias.data() + n0 : nullptr, ref.data(), nc);
      if (q8)
        Q4_0Q8GemmReference(kernel.rows, 1, nc, kb, &xq[m * kb], kb, panel,
                            with_bias ? bias.data() + n0 : nullptr, ref_q8.data(), nc);
      for (size_t r = 0; r < nc; ++r) {
        double abs_sum = 0;
        for (size_t k = 0; k < K; ++k)
          abs_sum += std::fabs(double(x[m * ldx + k]) * wq[(n0 + r) * kp + k]);
        const double bias_bound = with_bias ? std::fabs(bias[n0 + r]) * std::ldexp(1.0, -23) : 0;
        const double bound = 2.0 * (kp + 16) * std::ldexp(1.0, -24) * abs_sum + bias_bound;
        if (!q8) {
          ASSERT_NEAR(y[m * ldy + n0 + r], ref[r], bound) << "m=" << m << " n=" << n0 + r;
          continue;
        }
        // Against the q8 twin: bit-identical (q4_ukernel.h), and so within its bound.
        double p_sum = 0, quant = 0;
        for (size_t b = 0; b < kb; ++b) {
          const Q4Q8Block& xb = xq[m * kb + b];
          uint16_t h;
          std::memcpy(&h, panel + (b * kernel.rows + r) * f.block_bytes, 2);
          double qabs = 0, wabs = 0;
          for (size_t j = 0; j < 32; ++j) {
            qabs += std::abs(xb.q[j]);
            wabs += std::fabs(wq[(n0 + r) * kp + b * 32 + j]);
          }
          p_sum += std::fabs(double(HalfToFloat(h) * xb.d)) * (15 * qabs + 8 * std::abs(xb.neg8sum[0] / 8));
          quant += 0.5001 * xb.d * wabs;
        }
        const double q8_bound = 2.0 * (kb + 8) * std::ldexp(1.0, -24) * p_sum + bias_bound;
        ASSERT_EQ(y[m * ldy + n0 + r], ref_q8[r]) << "m=" << m << " n=" << n0 + r;
        // Against the f32 twin: plus the activation quantization error |x - d q| <= 0.5001 d.
        ASSERT_NEAR(y[m * ldy + n0 + r], ref[r], bound + q8_bound + quant)
            << "m=" << m << " n=" << n0 + r;
      }
    }
  // Nothing outside Y's N columns is written.
  for (size_t m = 0; m < M; ++m)
    for (size_t n = N; n < ldy; ++n) ASSERT_EQ(y[m * ldy + n], -1234.5f);
}

void CheckFamily(const Family& f, std::initializer_list<size_t> ks) {
  for (const auto& kernel : f.table()) {
    if (!kernel.supported()) {
      std::printf("skipping unsupported %s\n", kernel.name);
      continue;
    }
    for (size_t M = 1; M <= 9; ++M)
      for (size_t N : {1, 7, 17, 33})
        for (size_t K : ks) CheckKernel(f, kernel, M, N, K, (M + N) % 2 == 0);
  }
}

TEST(Q4GemmTest, Q4_0EveryKernelMatchesReference) { CheckFamily(kQ4_0, {1, 33, 100, 288}); }

TEST(Q4GemmTest, Q4_KEveryKernelMatchesReference) { CheckFamily(kQ4_K, {33, 256, 300, 545}); }

TEST(Q4GemmTest, PortableRowsAreLastAndSupported) {
  EXPECT_TRUE(PortableQ4_0GemmKernel().supported());
  EXPECT_STREQ(PortableQ4_0GemmKernel().isa, "portable");
  EXPECT_EQ(&PortableQ4_0GemmKernel(), &Q4_0GemmKernels().back());
  EXPECT_STREQ(PortableQ4_KGemmKernel().isa, "portable");
  EXPECT_EQ(FindQ4_0GemmKernel(PortableQ4_0GemmKernel().name), &PortableQ4_0GemmKernel());
  EXPECT_EQ(FindQ4_KGemmKernel("no_such_kernel"), nullptr);
  EXPECT_TRUE(DefaultQ4_0GemmKernel().supported());
  EXPECT_TRUE(DefaultQ4_KGemmKernel().supported());
}

// A reference computed in double from the encoding's own decoder: the f32 rows compute the
// product with the quantized weights, nothing else; the q8 rows add only the activation
// quantization error (at most 0.5001 * d per activation, d = block amax / 127).
TEST(Q4GemmTest, Q4_0MatchesDecodedWeightsInDouble) {
  const size_t M = 3, N = 21, K = 100;
  const std::vector<float> w = Normal(N * K, 5), x = Normal(M * K, 6);
  for (const auto& kernel : Q4_0GemmKernels()) {
    if (!kernel.supported()) continue;
    SCOPED_TRACE(kernel.name);
    const std::vector<uint8_t> packed = Pack(kQ4_0, N, K, w, kernel.rows);
    std::vector<float> y(M * N);
    Q4_0Gemm(kernel, M, N, K, x.data(), K, packed.data(), nullptr, y.data(), N);
    std::vector<float> row(128);
    for (size_t n = 0; n < N; ++n) {
      std::vector<uint8_t> blocks(4 * 18);
      GetEncodingTraits(Encoding::kQ4_0).from_float(&w[n * K], blocks.data(), K);
      GetEncodingTraits(Encoding::kQ4_0).to_float(blocks.data(), row.data(), K);
      for (size_t m = 0; m < M; ++m) {
        double s = 0, a = 0, quant = 0;
        for (size_t k = 0; k < K; ++k) {
          s += double(x[m * K + k]) * row[k];
          a += std::fabs(double(x[m * K + k]) * row[k]);
        }
        if (kernel.quantize_x != nullptr)
          for (size_t b = 0; b * 32 < K; ++b) {
            double amax = 0, wabs = 0;
            for (size_t k = b * 32; k < std::min(K, b * 32 + 32); ++k) {
              amax = std::max(amax, double(std::fabs(x[m * K + k])));
              wabs += std::fabs(row[k]);
            }
            quant += 0.5001 * amax / 127 * wabs;
          }
        EXPECT_NEAR(y[m * N + n], s, 1e-5 * a + quant) << m << "," << n;
      }
    }
  }
}

// The AVX-512 activation quantizer writes exactly the twin's bytes: ragged K, all-zero blocks,
// blocks of one nonzero value, exact half-way quotients and wide magnitude ranges.
TEST(Q4GemmTest, Q4_0Q8QuantizerMatchesTwin) {
  const Q4GemmKernel* row = FindQ4_0GemmKernel("gemm_q4_0_q8_8x16_avx512vnni");
  ASSERT_NE(row, nullptr);
  if (!row->supported()) GTEST_SKIP() << "no AVX512-VNNI/VBMI";
  ASSERT_NE(row->quantize_x, nullptr);
  for (size_t k : {1, 16, 17, 31, 32, 33, 100, 288}) {
    const size_t m = 3, ldx = k + 5, kb = (k + 31) / 32;
    std::vector<float> x = Normal(m * ldx, static_cast<unsigned>(k), 3.0f);
    for (size_t j = 0; j < std::min<size_t>(k, 32); ++j) x[ldx + j] = 0.0f;  // row 1 block 0
    if (k >= 40) {
      for (size_t j = 32; j < 64 && j < k; ++j) x[ldx + j] = 0.0f;
      x[ldx + 40] = -2.5f;  // one nonzero: q = -127 there, 0 elsewhere
    }
    // Row 2 block 0: amax 127, so d = 1 and quotients k + 0.5 are exact ties.
    for (size_t j = 0; j < std::min<size_t>(k, 32); ++j)
      x[2 * ldx + j] = j == 0 ? 127.0f : static_cast<float>(int(j) - 16) + 0.5f;
    for (size_t j = 0; j < k; ++j) x[j] *= std::ldexp(1.0f, int(j % 7) * 9 - 30);
    std::vector<Q4Q8Block> want(m * kb), got(m * kb);
    std::memset(got.data(), 0xAB, got.size() * sizeof(Q4Q8Block));
    Q4_0QuantizeXQ8Reference(m, k, x.data(), ldx, want.data());
    row->quantize_x(m, k, x.data(), ldx, got.data());
    // Byte identity is the contract: every byte is a named field (pad included, zero).
    for (size_t i = 0; i < m * kb; ++i)
      ASSERT_EQ(std::memcmp(&want[i], &got[i], sizeof(Q4Q8Block)), 0)  // NOLINT(bugprone-suspicious-memory-comparison)
          << "k=" << k << " block " << i;
    // Spot-check the definition itself on the tie block: d = 1, q = nearest even.
    EXPECT_EQ(want[2 * kb].d, 1.0f);
    if (k >= 6) {
      EXPECT_EQ(want[2 * kb].q[3], -12);  // -12.5 -> -12
      EXPECT_EQ(want[2 * kb].q[5], -10);  // -10.5 -> -10
    }
    if (k >= 40) {
      EXPECT_EQ(want[kb + 1].q[8], -127);
    }
  }
}

TEST(Q4GemmTest, ResultDoesNotDependOnThreadCount) {
  const size_t M = 9, N = 100, K = 300;
  for (const Family* f : {&kQ4_0, &kQ4_K}) {
    const Q4GemmKernel& kernel = f->enc == Encoding::kQ4_0 ? DefaultQ4_0GemmKernel()
                                                           : DefaultQ4_KGemmKernel();
    const std::vector<float> w = Normal(N * K, 1), x = Normal(M * K, 2), b = Normal(N, 4);
    const std::vector<uint8_t> packed = Pack(*f, N, K, w, kernel.rows);
    std::vector<float> y1(M * N), y2(M * N);
    f->gemm(kernel, M, N, K, x.data(), K, packed.data(), b.data(), y1.data(), N, 1);
    f->gemm(kernel, M, N, K, x.data(), K, packed.data(), b.data(), y2.data(), N, 2);
    EXPECT_EQ(y1, y2) << kernel.name;
  }
}

TEST(Q4GemmTest, EmptyReductionWritesBias) {
  const std::vector<float> b = {1, 2, 3};
  std::vector<float> y(6, 9.0f);
  Q4_0Gemm(DefaultQ4_0GemmKernel(), 2, 3, 0, nullptr, 0, nullptr, b.data(), y.data(), 3);
  EXPECT_EQ(y, (std::vector<float>{1, 2, 3, 1, 2, 3}));
  Q4_KGemm(DefaultQ4_KGemmKernel(), 2, 3, 0, nullptr, 0, nullptr, nullptr, y.data(), 3);
  EXPECT_EQ(y, std::vector<float>(6, 0.0f));
}

}  // namespace
}  // namespace vt::kernels
