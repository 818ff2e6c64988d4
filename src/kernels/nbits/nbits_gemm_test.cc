// Every row of the MatMulNBits kernel table against the logical definition and the reference
// twin, on odd sizes, every zero-point kind and several block sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/nbits/nbits_gemm.h"
#include "kernels/nbits/nbits_pack.h"
#include "vtensor/base/aligned_alloc.h"

namespace vt::kernels {
namespace {

struct Planes {
  size_t n, k, bs, kb;
  NBitsZeroPoints zp_kind;
  std::vector<uint8_t> codes;   // [n, kb, bs/2]
  std::vector<float> scales;    // [n, kb]
  std::vector<uint8_t> zp_u4;   // [n, ceil(kb/2)]
  std::vector<float> zp_f32;    // [n, kb]
  // Packed.
  std::vector<uint8_t> p_codes, p_scales, p_zp;

  float W(size_t r, size_t kk) const {
    const size_t b = kk / bs, j = kk % bs;
    const uint8_t byte = codes[(r * kb + b) * (bs / 2) + j / 2];
    const float u = static_cast<float>((j & 1) != 0 ? byte >> 4 : byte & 15);
    float zp = 8.0f;
    if (zp_kind == NBitsZeroPoints::kU4) {
      const uint8_t z = zp_u4[r * ((kb + 1) / 2) + b / 2];
      zp = static_cast<float>((b & 1) != 0 ? z >> 4 : z & 15);
    } else if (zp_kind == NBitsZeroPoints::kF32) {
      zp = zp_f32[r * kb + b];
    }
    return (u - zp) * scales[r * kb + b];
  }

  NBitsPanel Panel() const {
    NBitsPanel w;
    w.codes = p_codes.data();
    w.scales = reinterpret_cast<const float*>(p_scales.data());
    w.zp_kind = zp_kind;
    if (zp_kind == NBitsZeroPoints::kU4) w.zp_u4 = p_zp.data();
    if (zp_kind == NBitsZeroPoints::kF32) w.zp_f32 = reinterpret_cast<const float*>(p_zp.data());
    return w;
  }
};

Planes MakePlanes(size_t n, size_t k, size_t bs, NBitsZeroPoints zk, std::mt19937& g) {
  Planes p{n, k, bs, (k + bs - 1) / bs, zk, {}, {}, {}, {}, {}, {}, {}};
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> sc(0.001f, 0.05f), zf(0.0f, 15.0f);
  p.codes.resize(n * p.kb * bs / 2);
  for (auto& c : p.codes) c = static_cast<uint8_t>(byte(g));
  p.scales.resize(n * p.kb);
  for (auto& s : p.scales) s = sc(g);
  const size_t kzb = (p.kb + 1) / 2;
  p.zp_u4.resize(n * kzb);
  for (auto& z : p.zp_u4) z = static_cast<uint8_t>(byte(g));
  p.zp_f32.resize(n * p.kb);
  for (auto& z : p.zp_f32) z = zf(g);
  p.p_codes.resize(NBitsPanelBytes(n, p.kb, bs / 2));
  PackNBitsRowsToPanels(n, p.kb, bs / 2, p.codes.data(), p.p_codes.data());
  p.p_scales.resize(NBitsPanelBytes(n, p.kb, 4));
  PackNBitsRowsToPanels(n, p.kb, 4, reinterpret_cast<const uint8_t*>(p.scales.data()),
                        p.p_scales.data());
  if (zk == NBitsZeroPoints::kU4) {
    p.p_zp.resize(NBitsPanelBytes(n, kzb, 1));
    PackNBitsRowsToPanels(n, kzb, 1, p.zp_u4.data(), p.p_zp.data());
  } else if (zk == NBitsZeroPoints::kF32) {
    p.p_zp.resize(NBitsPanelBytes(n, p.kb, 4));
    PackNBitsRowsToPanels(n, p.kb, 4, reinterpret_cast<const uint8_t*>(p.zp_f32.data()),
                          p.p_zp.data());
  }
  return p;
}

// Whether two quantized blocks hold the same bits, field by field (the scale d compared as
// its bit pattern, the pad bytes included: the row quantizers promise bit-identical blocks).
bool SameBits(const Q4Q8Block& x, const Q4Q8Block& y) {
  return std::equal(std::begin(x.q), std::end(x.q), std::begin(y.q)) &&
         std::equal(std::begin(x.neg8sum), std::end(x.neg8sum), std::begin(y.neg8sum)) &&
         std::bit_cast<uint32_t>(x.d) == std::bit_cast<uint32_t>(y.d) &&
         std::equal(std::begin(x.pad), std::end(x.pad), std::begin(y.pad));
}

TEST(NBitsPackTest, PanelPositionsAndZeroRows) {
  const size_t n = 19, cols = 3, unit = 2;
  std::vector<uint8_t> src(n * cols * unit);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 1);
  std::vector<uint8_t> dst(NBitsPanelBytes(n, cols, unit), 0xAA);
  ASSERT_EQ(dst.size(), 32u * cols * unit);
  PackNBitsRowsToPanels(n, cols, unit, src.data(), dst.data());
  for (size_t row = 0; row < 32; ++row)
    for (size_t c = 0; c < cols; ++c)
      for (size_t u = 0; u < unit; ++u) {
        const size_t at = (((row / 16) * cols + c) * 16 + row % 16) * unit + u;
        EXPECT_EQ(dst[at], row < n ? src[(row * cols + c) * unit + u] : 0) << row << " " << c;
      }
}

// Each row and the twin against the logical definition (double sums), within the bound of
// nbits_ukernel.h.
TEST(NBitsGemmTest, EveryRowMatchesDefinitionOnOddSizes) {
  std::mt19937 g(42);
  std::uniform_real_distribution<float> xd(-1.0f, 1.0f);
  struct Case { size_t m, n, k, bs; };
  const Case cases[] = {{1, 16, 32, 32}, {1, 17, 100, 32}, {2, 33, 64, 64}, {3, 5, 200, 64},
                        {5, 40, 257, 128}, {8, 16, 96, 32}, {9, 31, 130, 32}, {17, 18, 64, 32},
                        {1, 1, 1, 32}, {4, 48, 512, 256}};
  for (const auto zk : {NBitsZeroPoints::kNone, NBitsZeroPoints::kU4, NBitsZeroPoints::kF32})
    for (const Case& c : cases) {
      Planes p = MakePlanes(c.n, c.k, c.bs, zk, g);
      const size_t ldx = c.k + 3;
      std::vector<float> x(c.m * ldx);
      for (auto& v : x) v = xd(g);
      std::vector<float> bias(c.n);
      for (auto& v : bias) v = xd(g);
      for (const auto& kernel : NBitsGemmKernels()) {
        if (!kernel.supported() || kernel.q8_ukernel != nullptr) continue;
        const size_t ldy = c.n + 2;
        std::vector<float> y(c.m * ldy, -7.0f);
        NBitsGemm(kernel, c.m, c.n, c.k, c.bs, x.data(), ldx, p.Panel(), bias.data(), y.data(),
                  ldy);
        for (size_t i = 0; i < c.m; ++i)
          for (size_t r = 0; r < c.n; ++r) {
            double ref = bias[r], mag = std::fabs(bias[r]);
            for (size_t kk = 0; kk < c.k; ++kk) {
              ref += static_cast<double>(x[i * ldx + kk]) * p.W(r, kk);
              mag += std::fabs(static_cast<double>(x[i * ldx + kk]) * p.W(r, kk));
            }
            const double bound = 2.0 * (static_cast<double>(p.kb * c.bs) + 16) * std::ldexp(1.0, -24) * mag;
            EXPECT_LE(std::fabs(y[i * ldy + r] - ref), bound)
                << kernel.name << " m=" << c.m << " n=" << c.n << " k=" << c.k << " bs=" << c.bs
                << " zp=" << static_cast<int>(zk) << " at (" << i << "," << r << ")";
          }
        // Nothing past the N columns is written.
        for (size_t i = 0; i < c.m; ++i)
          for (size_t r = c.n; r < ldy; ++r) EXPECT_EQ(y[i * ldy + r], -7.0f) << kernel.name;
      }
    }
}

// Pair-ordered, zero-padded activations (as the driver builds them).
std::vector<float> PairOrder(const std::vector<float>& x, size_t m, size_t k, size_t ldx,
                             size_t ldp) {
  std::vector<float> xp(m * ldp, 0.0f);
  for (size_t i = 0; i < m; ++i)
    for (size_t kk = 0; kk < k; ++kk)
      xp[i * ldp + (kk / 32) * 32 + (kk & 1) * 16 + (kk % 32) / 2] = x[i * ldx + kk];
  return xp;
}

// The q8 rows (accuracy_level 4): bit-identical to the q8 twin on the same quantized
// activations, panel by panel, and within the activation quantization error of the definition.
TEST(NBitsGemmTest, Q8RowsAreBitIdenticalToTheirTwin) {
  std::mt19937 g(11);
  std::uniform_real_distribution<float> xd(-1.0f, 1.0f);
  struct Case { size_t m, n, k, bs; };
  const Case cases[] = {{1, 16, 32, 32}, {1, 17, 100, 32}, {2, 33, 128, 64}, {3, 5, 200, 64},
                        {8, 40, 257, 128}, {9, 31, 130, 32}, {1, 48, 512, 256}};
  for (const auto zk : {NBitsZeroPoints::kNone, NBitsZeroPoints::kU4, NBitsZeroPoints::kF32})
    for (const Case& c : cases) {
      Planes p = MakePlanes(c.n, c.k, c.bs, zk, g);
      std::vector<float> x(c.m * c.k), bias(c.n);
      for (auto& v : x) v = xd(g);
      for (auto& v : bias) v = xd(g);
      const size_t ldp = p.kb * c.bs, ldq = ldp / 32;
      const std::vector<float> xp = PairOrder(x, c.m, c.k, c.k, ldp);
      std::vector<Q4Q8Block> xq(c.m * ldq);
      NBitsQuantizeXQ8(c.m, ldp, c.bs, xp.data(), ldp, xq.data());
      std::vector<float> want(c.m * c.n);
      for (size_t pnl = 0; pnl * 16 < c.n; ++pnl) {
        NBitsPanel w = p.Panel();
        w.codes += pnl * p.kb * 16 * (c.bs / 2);
        w.scales += pnl * p.kb * 16;
        if (w.zp_u4) w.zp_u4 += pnl * ((p.kb + 1) / 2) * 16;
        if (w.zp_f32) w.zp_f32 += pnl * p.kb * 16;
        NBitsQ8GemmReference(c.m, std::min<size_t>(16, c.n - pnl * 16), p.kb, c.bs, xq.data(),
                             ldq, w, bias.data() + pnl * 16, want.data() + pnl * 16, c.n);
      }
      for (const auto& kernel : NBitsGemmKernels()) {
        if (!kernel.supported() || kernel.q8_ukernel == nullptr) continue;
        std::vector<float> y(c.m * c.n);
        NBitsGemm(kernel, c.m, c.n, c.k, c.bs, x.data(), c.k, p.Panel(), bias.data(), y.data(), c.n);
        for (size_t i = 0; i < y.size(); ++i)
          ASSERT_EQ(y[i], want[i]) << kernel.name << " m=" << c.m << " n=" << c.n << " k=" << c.k
                                   << " bs=" << c.bs << " zp=" << static_cast<int>(zk) << " at " << i;
        // Within |x - d q| <= 0.5001 d per activation of the definition (plus f32 sums).
        for (size_t i = 0; i < c.m; ++i)
          for (size_t r = 0; r < c.n; ++r) {
            double ref = bias[r], mag = std::fabs(bias[r]), qerr = 0;
            for (size_t kk = 0; kk < c.k; ++kk) {
              const double wv = p.W(r, kk);
              ref += static_cast<double>(x[i * c.k + kk]) * wv;
              mag += std::fabs(static_cast<double>(x[i * c.k + kk]) * wv) + std::fabs(wv);
              qerr += std::fabs(wv) * 0.5001 * xq[i * ldq + kk / 32].d;
            }
            const double bound = qerr + 4.0 * (static_cast<double>(ldp) + 16) * std::ldexp(1.0, -24) * mag;
            EXPECT_LE(std::fabs(y[i * c.n + r] - ref), bound) << kernel.name << " (" << i << "," << r << ")";
          }
      }
    }
}

// The unpack of every tile pair: each code at the position nbits_ukernel.h gives it, for
// several block sizes and odd block counts.
TEST(NBitsGemmTest, UnpackPlacesEveryCode) {
  std::mt19937 g(13);
  for (const auto& kernel : NBitsGemmKernels()) {
    if (!kernel.supported() || kernel.q8_unpack == nullptr) continue;
    for (size_t bs : {32, 64, 128, 256})
      for (size_t kb : {1, 3, 7}) {
        Planes p = MakePlanes(16, kb * bs, bs, NBitsZeroPoints::kNone, g);
        AlignedVector<uint8_t> u(NBitsUnpackedBytes(kb, bs), 0xEE);
        kernel.q8_unpack(kb, bs, p.p_codes.data(), u.data());
        const size_t chunks = bs / 32;
        for (size_t r = 0; r < 16; ++r)
          for (size_t kk = 0; kk < kb * bs; ++kk) {
            const size_t b = kk / bs, c = (kk % bs) / 32, e = kk % 32;
            const size_t pos = (e & 1) * 16 + e / 2;  // pair order
            const uint8_t byte = p.codes[(r * kb + b) * (bs / 2) + (kk % bs) / 2];
            const uint8_t want = (kk & 1) != 0 ? byte >> 4 : byte & 15;
            const size_t dword = 4 * (r % 4) + r / 4;
            ASSERT_EQ(u[((b * chunks + c) * 8 + pos / 4) * 64 + dword * 4 + pos % 4], want)
                << kernel.name << " bs=" << bs << " kb=" << kb << " row " << r << " k " << kk;
          }
      }
  }
}

// Every tile pair against the q8 twin, called directly (unpack, then the tile per MR rows) on
// every row count 1..kNBitsMaxMr, odd panel widths and every zero-point kind: bit-identical.
TEST(NBitsGemmTest, TilesAreBitIdenticalToTheQ8Twin) {
  std::mt19937 g(17);
  std::uniform_real_distribution<float> xd(-1.5f, 1.5f);
  struct Case { size_t nc, k, bs; };
  const Case cases[] = {{16, 32, 32}, {1, 96, 32}, {7, 200, 64}, {15, 257, 128}, {16, 768, 256}};
  for (const auto zk : {NBitsZeroPoints::kNone, NBitsZeroPoints::kU4, NBitsZeroPoints::kF32})
    for (const Case& c : cases) {
      Planes p = MakePlanes(c.nc, c.k, c.bs, zk, g);
      const size_t m = kNBitsMaxMr, ldp = p.kb * c.bs, ldq = ldp / 32, ldy = 19;
      std::vector<float> x(m * c.k), bias(16);
      for (auto& v : x) v = xd(g);
      for (auto& v : bias) v = xd(g);
      const std::vector<float> xp = PairOrder(x, m, c.k, c.k, ldp);
      std::vector<Q4Q8Block> xq(m * ldq);
      NBitsQuantizeXQ8(m, ldp, c.bs, xp.data(), ldp, xq.data());
      for (const auto& kernel : NBitsGemmKernels()) {
        if (!kernel.supported() || kernel.q8_tile == nullptr) continue;
        AlignedVector<uint8_t> u(NBitsUnpackedBytes(p.kb, c.bs));
        kernel.q8_unpack(p.kb, c.bs, p.p_codes.data(), u.data());
        for (size_t mr = 1; mr <= m; ++mr)
          for (const float* bp : {static_cast<const float*>(nullptr), static_cast<const float*>(bias.data())}) {
            std::vector<float> y(mr * ldy, -7.0f), want(mr * ldy, -7.0f);
            kernel.q8_tile(mr, c.nc, p.kb, c.bs, xq.data(), ldq, u.data(), p.Panel(), bp,
                           y.data(), ldy);
            NBitsQ8GemmReference(mr, c.nc, p.kb, c.bs, xq.data(), ldq, p.Panel(), bp,
                                 want.data(), ldy);
            for (size_t i = 0; i < y.size(); ++i)
              ASSERT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(want[i]))
                  << kernel.name << " mr=" << mr << " nc=" << c.nc << " k=" << c.k
                  << " bs=" << c.bs << " zp=" << static_cast<int>(zk) << " at " << i;
          }
      }
    }
}

// Through the driver, a row with its tile pair and the same row without it give the same bits
// for every M (below kNBitsTileMinRows the row's own microkernel, from it on the tile).
TEST(NBitsGemmTest, DriverTileMatchesTheRowWithoutIt) {
  std::mt19937 g(19);
  std::uniform_real_distribution<float> xd(-1.0f, 1.0f);
  Planes p = MakePlanes(37, 160, 32, NBitsZeroPoints::kU4, g);
  for (const auto& kernel : NBitsGemmKernels()) {
    if (!kernel.supported() || kernel.q8_tile == nullptr) continue;
    NBitsGemmKernel plain = kernel;
    plain.q8_unpack = nullptr;
    plain.q8_tile = nullptr;
    for (size_t m : {size_t{1}, size_t{9}, kNBitsTileMinRows, kNBitsTileMinRows + 1,
                     kNBitsTileMinRows + 7}) {
      std::vector<float> x(m * 160);
      for (auto& v : x) v = xd(g);
      std::vector<float> y(m * 37), want(m * 37);
      NBitsGemm(kernel, m, 37, 160, 32, x.data(), 160, p.Panel(), nullptr, y.data(), 37);
      NBitsGemm(plain, m, 37, 160, 32, x.data(), 160, p.Panel(), nullptr, want.data(), 37);
      for (size_t i = 0; i < y.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(want[i]))
            << kernel.name << " m=" << m << " at " << i;
    }
  }
}

// The activation quantizer: one scale per weight block, d = amax / 127, |x - d q| <= 0.5001 d,
// neg8sum = -8 * sum q per 32-element chunk; an all-zero block gives zeros.
TEST(NBitsGemmTest, QuantizerUsesOneScalePerBlock) {
  std::mt19937 g(5);
  std::uniform_real_distribution<float> xd(-3.0f, 3.0f);
  for (size_t bs : {32, 64, 256}) {
    const size_t m = 2, k = 2 * bs;
    std::vector<float> x(m * k);
    for (auto& v : x) v = xd(g);
    for (size_t j = 0; j < bs; ++j) x[bs + j] = 0.0f;  // row 0, block 1: zeros
    std::vector<Q4Q8Block> xq(m * k / 32);
    NBitsQuantizeXQ8(m, k, bs, x.data(), k, xq.data());
    for (size_t i = 0; i < m; ++i)
      for (size_t b = 0; b < k / bs; ++b) {
        float amax = 0.0f;
        for (size_t j = 0; j < bs; ++j) amax = std::max(amax, std::fabs(x[i * k + b * bs + j]));
        for (size_t c = 0; c < bs / 32; ++c) {
          const Q4Q8Block& blk = xq[i * (k / 32) + b * (bs / 32) + c];
          EXPECT_EQ(blk.d, amax / 127.0f) << "bs=" << bs << " row " << i << " block " << b;
          int32_t sum = 0;
          for (size_t j = 0; j < 32; ++j) {
            const float v = x[i * k + b * bs + c * 32 + j];
            EXPECT_LE(std::fabs(v - blk.d * blk.q[j]), 0.5001f * blk.d + 1e-30f);
            sum += blk.q[j];
          }
          EXPECT_EQ(blk.neg8sum[0], -8 * sum);
        }
      }
  }
}

// Every row's quantizer (logical order in) gives NBitsQuantizeXQ8's blocks on the pair-ordered,
// zero-padded rows, byte for byte, on odd K (a short last block, a short last chunk), with a
// zero row and values that sit on rounding ties.
TEST(NBitsGemmTest, RowQuantizersMatchTheDefinition) {
  std::mt19937 g(23);
  std::uniform_real_distribution<float> xd(-4.0f, 4.0f);
  for (size_t bs : {32, 64, 128})
    for (size_t k : {1, 7, 17, 33, 100, 257}) {
      const size_t m = 3, ldx = k + 5, kb = (k + bs - 1) / bs, ldp = kb * bs, ldq = ldp / 32;
      std::vector<float> x(m * ldx);
      for (auto& v : x) v = xd(g);
      for (size_t kk = 0; kk < k; ++kk) x[ldx + kk] = 0.0f;                  // row 1: zeros
      for (size_t kk = 0; kk < k; ++kk) x[2 * ldx + kk] = 0.5f * static_cast<float>(kk % 9);
      std::vector<float> xl(m * k);
      for (size_t i = 0; i < m; ++i)
        for (size_t kk = 0; kk < k; ++kk) xl[i * k + kk] = x[i * ldx + kk];
      const std::vector<float> xp = PairOrder(xl, m, k, k, ldp);
      std::vector<Q4Q8Block> want(m * ldq);
      NBitsQuantizeXQ8(m, ldp, bs, xp.data(), ldp, want.data());
      for (const auto& kernel : NBitsGemmKernels()) {
        if (!kernel.supported() || kernel.q8_quantize == nullptr) continue;
        std::vector<Q4Q8Block> got(m * ldq);
        std::memset(got.data(), 0x5A, got.size() * sizeof(Q4Q8Block));
        kernel.q8_quantize(m, k, kb, bs, x.data(), ldx, got.data(), ldq);
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_TRUE(SameBits(got[i], want[i]))
              << kernel.name << " bs=" << bs << " k=" << k << " block " << i;
      }
    }
}

// The portable row equals the twin bit for bit (it is the twin's arithmetic), forced through
// the driver as a machine without AVX-512 would run it.
TEST(NBitsGemmTest, PortableRowIsTheTwin) {
  std::mt19937 g(7);
  std::uniform_real_distribution<float> xd(-2.0f, 2.0f);
  Planes p = MakePlanes(21, 96, 32, NBitsZeroPoints::kU4, g);
  const size_t m = 3, kb = p.kb;
  std::vector<float> x(m * 96);
  for (auto& v : x) v = xd(g);
  std::vector<float> y(m * 21), yr(m * 21);
  NBitsGemm(PortableNBitsGemmKernel(), m, 21, 96, 32, x.data(), 96, p.Panel(), nullptr, y.data(), 21);
  // The twin on pair-ordered activations, panel by panel.
  std::vector<float> xp(m * kb * 32, 0.0f);
  for (size_t i = 0; i < m; ++i)
    for (size_t k = 0; k < 96; ++k)
      xp[i * kb * 32 + (k / 32) * 32 + (k & 1) * 16 + (k % 32) / 2] = x[i * 96 + k];
  for (size_t pnl = 0; pnl < 2; ++pnl) {
    NBitsPanel w = p.Panel();
    w.codes += pnl * kb * 16 * 16;
    w.scales += pnl * kb * 16;
    w.zp_u4 += pnl * ((kb + 1) / 2) * 16;
    NBitsGemmReference(m, pnl == 0 ? 16 : 5, kb, 32, xp.data(), kb * 32, w, nullptr,
                       yr.data() + pnl * 16, 21);
  }
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], yr[i]) << i;
}

TEST(NBitsGemmTest, ThreadCountDoesNotChangeResult) {
  std::mt19937 g(3);
  std::uniform_real_distribution<float> xd(-1.0f, 1.0f);
  Planes p = MakePlanes(100, 256, 64, NBitsZeroPoints::kF32, g);
  std::vector<float> x(4 * 256);
  for (auto& v : x) v = xd(g);
  std::vector<float> y1(4 * 100), y4(4 * 100);
  const auto& k = DefaultNBitsGemmKernel();
  NBitsGemm(k, 4, 100, 256, 64, x.data(), 256, p.Panel(), nullptr, y1.data(), 100, 1);
  NBitsGemm(k, 4, 100, 256, 64, x.data(), 256, p.Panel(), nullptr, y4.data(), 100, 4);
  EXPECT_EQ(y1, y4);
}

}  // namespace
}  // namespace vt::kernels
