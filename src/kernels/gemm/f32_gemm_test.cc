// Every f32 GEMM table kernel against its scalar reference twin, and the blocked driver
// against a naive triple loop, on odd sizes.
#include "kernels/gemm/f32_gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <vector>

namespace vt::kernels {

// gtest prints a test's parameter in test listings (ctest shows it): the row's name, not
// its bytes. Declared beside the row type's namespace so that gtest finds it.
void PrintTo(const F32GemmKernel& row, std::ostream* os) { *os << row.name; }

namespace {

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, size_t k,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  const float tol = 1e-5f * static_cast<float>(k + 1) + 1e-6f;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << what << " at " << i;
  }
}

// Bit for bit (the sign of zeros included).
void ExpectBitIdentical(const std::vector<float>& got, const std::vector<float>& want,
                        const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i]))
        << what << " at " << i << ": " << got[i] << " != " << want[i];
  }
}

class UkernelTest : public ::testing::TestWithParam<F32GemmKernel> {};

// The per-tile epilogue cases every ukernel test runs: mode % 4 == 0 plain, 1 alpha 0.5 with a
// per-row bias, 2 accumulate into C, 3 both biases and a clamp (biases of MR and NR values).
struct TileEpilogue {
  std::vector<float> bias_m, bias_n;
  TileEpilogue(size_t MR, size_t NR) : bias_m(Random(MR, 3)), bias_n(Random(NR, 4)) {}
  F32GemmTileParams Params(int mode) const {
    const int m4 = mode % 4;
    F32GemmTileParams p;
    p.alpha = m4 == 1 ? 0.5f : 1.0f;
    p.accumulate = m4 == 2;
    p.bias_m = m4 == 1 || m4 == 3 ? bias_m.data() : nullptr;
    p.bias_n = m4 == 3 ? bias_n.data() : nullptr;
    p.clamp = m4 == 3;
    p.min = -0.25f;
    p.max = 0.5f;
    return p;
  }
};

// The initial C of a tile test: MR rows with row stride NR + 5.
size_t TileCStride(size_t NR) { return NR + 5; }
std::vector<float> TileC(size_t MR, size_t NR) { return Random(MR * TileCStride(NR), 5); }

// Runs kr's ukernel and the reference twin on the same initial C (TileC) and compares them bit
// for bit (the twin defines the summation order), elements outside mr x nc included; returns
// the kernel's C.
std::vector<float> ExpectTileMatchesReference(const F32GemmKernel& kr, size_t mr, size_t nc,
                                              size_t kc, const float* a, const float* b,
                                              size_t b_stride, const F32GemmTileParams& p,
                                              const std::string& what) {
  const size_t c_stride = TileCStride(kr.nr);
  auto got = TileC(kr.mr, kr.nr), want = got;
  kr.ukernel(mr, nc, kc, a, b, b_stride, got.data(), c_stride, &p);
  F32GemmUkernelReference(kr.mr, kr.nr, mr, nc, kc, a, b, b_stride, want.data(), c_stride, &p,
                          kr.products);
  ExpectBitIdentical(got, want,
                     std::string(kr.name) + what + " kc=" + std::to_string(kc) +
                         " mr=" + std::to_string(mr) + " nc=" + std::to_string(nc));
  return got;
}

TEST_P(UkernelTest, MatchesReferenceOnOddTiles) {
  const F32GemmKernel& kr = GetParam();
  if (!kr.supported()) GTEST_SKIP() << kr.name << " not supported on this CPU";
  const size_t MR = kr.mr, NR = kr.nr;
  // kc across the sum blocks and groups (f32_gemm_ukernel.h): one block, one and a bit, two and
  // a bit, a group and a bit, one and a half groups, two groups and a short third (whole and
  // short blocks side by side in the decode and narrow rows).
  for (size_t kc : {0, 1, 7, 17, 33, 128, 129, 257, 300, 513, 777, 1100}) {
    for (size_t mr = 1; mr <= MR; ++mr) {
      for (size_t nc : {size_t{1}, size_t{7}, NR / 2, NR / 2 + 1, NR - 1, NR}) {
        if (nc > NR || nc == 0) continue;  // contract: 1 <= nc <= NR
        // mode 4..7: as 0..3 with B as a packed panel (b_stride == NR) and the streaming hint,
        // the decode fast path.
        for (int mode = 0; mode < 8; ++mode) {
          auto a = Random(kc * MR, 1 + kc);
          // B read in place from a wider matrix, or a packed panel.
          const size_t b_stride = mode < 4 ? NR + 3 : NR;
          auto b = Random(std::max<size_t>(kc, 1) * b_stride, 2 + kc);
          const TileEpilogue ep(MR, NR);
          F32GemmTileParams p = ep.Params(mode);
          p.stream_b = mode >= 4;
          ExpectTileMatchesReference(kr, mr, nc, kc, a.data(), b.data(), b_stride, p,
                                     " mode=" + std::to_string(mode));
        }
      }
    }
  }
}

// Rows-A kernels with A read in place (a_stride != 0): A is row-major with a row stride past kc
// and NaN padding, so that a read past a row's kc elements poisons the result; the buffer ends
// at the last element of row mr - 1 (rows past mr must not be read: sanitizer builds catch it).
TEST_P(UkernelTest, RowsAMatchesReference) {
  const F32GemmKernel& kr = GetParam();
  if (!kr.rows_a) GTEST_SKIP() << kr.name << " reads packed A only";
  if (!kr.supported()) GTEST_SKIP() << kr.name << " not supported on this CPU";
  const size_t MR = kr.mr, NR = kr.nr;
  for (size_t kc : {1, 7, 17, 33, 257, 777}) {
    const size_t lda = kc + 3;
    for (size_t mr = 1; mr <= MR; ++mr) {
      for (size_t nc : {size_t{1}, size_t{7}, NR / 2 + 1, NR - 1, NR}) {
        for (int mode = 0; mode < 4; ++mode) {
          auto src = Random(mr * kc, 1 + kc);
          std::vector<float> a((mr - 1) * lda + kc, NAN);
          for (size_t i = 0; i < mr; ++i)
            std::copy(src.begin() + i * kc, src.begin() + (i + 1) * kc, a.begin() + i * lda);
          const size_t b_stride = mode % 2 == 0 ? NR + 3 : NR;
          auto b = Random(kc * b_stride, 2 + kc);
          const TileEpilogue ep(MR, NR);
          F32GemmTileParams p = ep.Params(mode);
          p.a_stride = lda;
          const auto got = ExpectTileMatchesReference(kr, mr, nc, kc, a.data(), b.data(), b_stride,
                                                      p, " rows A mode=" + std::to_string(mode));
          // The same tile from packed A: bit-identical (same sums in the same order).
          std::vector<float> packed(kc * MR, 0.0f);
          for (size_t i = 0; i < mr; ++i)
            for (size_t k = 0; k < kc; ++k) packed[k * MR + i] = src[i * kc + k];
          F32GemmTileParams pp = p;
          pp.a_stride = 0;
          auto from_panel = TileC(MR, NR);
          kr.ukernel(mr, nc, kc, packed.data(), b.data(), b_stride, from_panel.data(),
                     TileCStride(NR), &pp);
          ASSERT_EQ(got, from_panel) << kr.name << " kc=" << kc << " mr=" << mr << " nc=" << nc;
        }
      }
    }
  }
}

// Split-B kernels reading two half-width panels (b_split != 0): the halves sit apart in one
// buffer with NaN between them and past each row's NR / 2 columns, so a read of the wrong half
// or past a half poisons the result; with A packed and read in place, plain and streaming.
TEST_P(UkernelTest, SplitBMatchesReference) {
  const F32GemmKernel& kr = GetParam();
  if (!kr.split_b) GTEST_SKIP() << kr.name << " reads one B panel only";
  if (!kr.supported()) GTEST_SKIP() << kr.name << " not supported on this CPU";
  const size_t MR = kr.mr, NR = kr.nr, half = NR / 2;
  for (size_t kc : {1, 7, 17, 33, 257, 777}) {
    for (size_t mr = 1; mr <= MR; ++mr) {
      for (size_t nc : {size_t{1}, size_t{7}, half, half + 1, NR - 1, NR}) {
        for (int mode = 0; mode < 6; ++mode) {
          const size_t b_stride = mode % 2 == 0 ? half + 3 : half;
          const size_t b_split = kc * b_stride + 11;
          std::vector<float> b(b_split + kc * b_stride, NAN);
          auto lo = Random(kc * half, 2 + kc), hi = Random(kc * half, 3 + kc);
          for (size_t k = 0; k < kc; ++k)
            for (size_t j = 0; j < half; ++j) {
              b[k * b_stride + j] = lo[k * half + j];
              b[b_split + k * b_stride + j] = hi[k * half + j];
            }
          auto a = Random(kc * MR, 1 + kc);
          const TileEpilogue ep(MR, NR);
          F32GemmTileParams p = ep.Params(mode < 4 ? mode : 0);  // 4, 5: plain epilogue
          p.b_split = b_split;
          p.stream_b = mode == 4;
          // mode 5: A read in place (rows-A kernels), row stride kc + 2.
          std::vector<float> a_rows;
          if (mode == 5) {
            if (!kr.rows_a) continue;
            p.a_stride = kc + 2;
            a_rows.assign((mr - 1) * p.a_stride + kc, NAN);
            for (size_t i = 0; i < mr; ++i)
              for (size_t k = 0; k < kc; ++k) a_rows[i * p.a_stride + k] = a[k * MR + i];
          }
          const float* ap = mode == 5 ? a_rows.data() : a.data();
          ExpectTileMatchesReference(kr, mr, nc, kc, ap, b.data(), b_stride, p,
                                     " split B mode=" + std::to_string(mode));
        }
      }
    }
  }
}

// Multi-panel kernels (a_panels > 1) given several A panels per call (a_panel_stride != 0):
// the panels sit apart with NaN between them, so a read past a panel's kc * MR floats poisons
// the result; rows past mr in the last panel are finite, as the packer leaves them. C has as
// many rows as the call covers, and rows past mr must come back untouched.
TEST_P(UkernelTest, MultiPanelMatchesReference) {
  const F32GemmKernel& kr = GetParam();
  if (kr.a_panels <= 1) GTEST_SKIP() << kr.name << " takes one A panel per call";
  if (!kr.supported()) GTEST_SKIP() << kr.name << " not supported on this CPU";
  const size_t MR = kr.mr, NR = kr.nr, P = kr.a_panels;
  for (size_t kc : {0, 1, 7, 17, 128, 129, 257, 513, 777}) {
    const size_t stride = kc * MR + 7;
    for (size_t mr : {MR + 1, 2 * MR, 2 * MR + 3, 3 * MR, 3 * MR + 1, 4 * MR - 1, 5 * MR,
                      P * MR - 2, P * MR}) {
      const size_t panels = (mr + MR - 1) / MR;
      for (size_t nc = 1; nc <= NR; ++nc) {
        for (int mode = 0; mode < 4; ++mode) {
          std::vector<float> a(panels * stride, NAN);
          const auto src = Random(panels * kc * MR, 1 + kc + mr);
          for (size_t t = 0; t < panels; ++t)
            std::copy(src.begin() + t * kc * MR, src.begin() + (t + 1) * kc * MR,
                      a.begin() + t * stride);
          const size_t b_stride = NR + 3;
          const auto b = Random(std::max<size_t>(kc, 1) * b_stride, 2 + kc);
          const TileEpilogue ep(P * MR, NR);
          F32GemmTileParams p = ep.Params(mode);
          p.a_panel_stride = stride;
          const size_t c_stride = TileCStride(NR);
          auto got = Random((P * MR + 1) * c_stride, 5), want = got;
          kr.ukernel(mr, nc, kc, a.data(), b.data(), b_stride, got.data(), c_stride, &p);
          F32GemmUkernelReference(MR, NR, mr, nc, kc, a.data(), b.data(), b_stride, want.data(),
                                  c_stride, &p, kr.products);
          ExpectBitIdentical(got, want,
                             std::string(kr.name) + " panels kc=" + std::to_string(kc) +
                                 " mr=" + std::to_string(mr) + " nc=" + std::to_string(nc) +
                                 " mode=" + std::to_string(mode));
          // Each panel on its own (one call per panel): the same bits.
          auto single = Random((P * MR + 1) * c_stride, 5);
          for (size_t t = 0; t < panels; ++t) {
            F32GemmTileParams q = p;
            q.a_panel_stride = 0;
            q.bias_m = p.bias_m ? p.bias_m + t * MR : nullptr;
            kr.ukernel(std::min(MR, mr - t * MR), nc, kc, a.data() + t * stride, b.data(),
                       b_stride, single.data() + t * MR * c_stride, c_stride, &q);
          }
          ASSERT_EQ(got, single) << kr.name << " kc=" << kc << " mr=" << mr << " nc=" << nc;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(F32GemmAllKernels, UkernelTest, ::testing::ValuesIn(F32GemmKernels().begin(),
                                                                       F32GemmKernels().end()),
                         [](const auto& info) { return std::string(info.param.name); });

// Naive C = alpha*A*B + bias_m + bias_n (+C0 when accumulate), then clamp.
std::vector<float> Naive(size_t M, size_t N, size_t K, const std::vector<float>& a,
                         const std::vector<float>& b, const std::vector<float>& c0,
                         const F32GemmEpilogue& ep) {
  std::vector<float> c(M * N);
  for (size_t m = 0; m < M; ++m)
    for (size_t n = 0; n < N; ++n) {
      double acc = 0;
      for (size_t k = 0; k < K; ++k) acc += double(a[m * K + k]) * b[k * N + n];
      float t = ep.alpha * float(acc);
      if (ep.accumulate) {
        t += c0[m * N + n];
      } else {
        if (ep.bias_m) t += ep.bias_m[m];
        if (ep.bias_n) t += ep.bias_n[n];
      }
      if (ep.clamp) t = std::min(std::max(t, ep.min), ep.max);
      c[m * N + n] = t;
    }
  return c;
}

// The driver's result as the summation order defines it (f32_gemm_ukernel.h): the twin over each
// whole row of C, K counted from 0, or from each group's first step when B's rows come in groups
// of `group_rows` (0: one group).
std::vector<float> Reference(const F32GemmKernel& kr, size_t M, size_t N, size_t K,
                             const std::vector<float>& a, const std::vector<float>& b,
                             const std::vector<float>& c0, const F32GemmEpilogue& ep,
                             size_t group_rows = 0) {
  std::vector<float> c = c0;
  const size_t g = group_rows == 0 ? std::max<size_t>(K, 1) : group_rows;
  for (size_t m = 0; m < M; ++m) {
    size_t k0 = 0;
    do {
      const size_t kc = std::min(g, K - k0);
      F32GemmTileParams p;
      p.alpha = ep.alpha;
      p.accumulate = ep.accumulate || k0 > 0;
      p.bias_m = ep.bias_m && !p.accumulate ? ep.bias_m + m : nullptr;
      p.bias_n = ep.bias_n && !p.accumulate ? ep.bias_n : nullptr;
      p.clamp = ep.clamp && k0 + kc >= K;
      p.min = ep.min;
      p.max = ep.max;
      p.a_stride = std::max<size_t>(K, 1);  // row m of A read in place
      F32GemmUkernelReference(1, N, 1, N, kc, a.data() + m * K + k0, b.data() + k0 * N, N,
                              c.data() + m * N, N, &p, kr.products);
      k0 += kc;
    } while (k0 < K);
  }
  return c;
}

std::vector<float> Transpose(const std::vector<float>& x, size_t rows, size_t cols) {
  std::vector<float> t(x.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) t[c * rows + r] = x[r * cols + c];
  return t;
}

struct CallbackCtx {
  const float* b;
  size_t ld;
};
void PackFromKn(const void* ctx, size_t k0, size_t kc, size_t n0, size_t nc, size_t nr,
                float* dst) {
  auto* c = static_cast<const CallbackCtx*>(ctx);
  PackF32Panels(nr, kc, nc, c->b + k0 * c->ld + n0, c->ld, 1, dst, kc * nr);
}

// kKnGroups operand: B's rows in groups of kGroupRows, each group its own buffer.
constexpr size_t kGroupRows = 5;
struct GroupCtx {
  std::vector<std::vector<float>> groups;
  size_t ld;
};
const float* GroupRows(const void* ctx, size_t g) {
  return static_cast<const GroupCtx*>(ctx)->groups[g].data();
}

void CheckDriver(const F32GemmKernel& kr, size_t M, size_t N, size_t K, int threads,
                 bool every_kind = true) {
  auto a = Random(M * K, 11), b = Random(K * N, 12), c0 = Random(M * N, 13);
  auto bias_m = Random(M, 14), bias_n = Random(N, 15);
  auto at = Transpose(a, M, K), bt = Transpose(b, K, N);
  // A [M, K] with row stride K + 3, NaN padding (read in place by rows-A kernels).
  const size_t lda = K + 3;
  std::vector<float> a_wide(M * lda, NAN);
  for (size_t m = 0; m < M; ++m) std::copy(a.begin() + m * K, a.begin() + (m + 1) * K, a_wide.begin() + m * lda);
  F32Panels ap = MakeF32PanelsFromMk(kr.mr, M, K, a.data(), K);
  F32Panels bp = MakeF32PanelsFromKn(kr.nr, K, N, b.data(), N);
  // Split-B kernels also read panels of half their NR, two per tile.
  F32Panels bp_half = MakeF32PanelsFromKn(kr.split_b ? kr.nr / 2 : kr.nr, K, N, b.data(), N);
  CallbackCtx cb{b.data(), N};
  GroupCtx gc;
  gc.ld = N + 3;
  for (size_t k0 = 0; k0 < K; k0 += kGroupRows) {
    gc.groups.emplace_back(kGroupRows * gc.ld, NAN);
    for (size_t k = k0; k < std::min(K, k0 + kGroupRows); ++k)
      std::copy(b.begin() + k * N, b.begin() + (k + 1) * N, gc.groups.back().begin() + (k - k0) * gc.ld);
  }
  if (gc.groups.empty()) gc.groups.emplace_back(1, 0.0f);
  bool checked_reference = false;
  for (int akind = 0; akind < 4; ++akind) {
    for (int bkind = 0; bkind < 7; ++bkind) {
      if (bkind == 6 && !kr.split_b) continue;
      if (!every_kind && (akind % 3 != 0 || (bkind != 0 && bkind != 2 && bkind != 6))) continue;
      F32GemmA A;
      if (akind == 0) A = {F32GemmA::Kind::kMk, a.data(), K, nullptr};
      if (akind == 1) A = {F32GemmA::Kind::kKm, at.data(), M, nullptr};
      if (akind == 2) A = {F32GemmA::Kind::kPanels, nullptr, 0, &ap};
      if (akind == 3) A = {F32GemmA::Kind::kMk, a_wide.data(), lda, nullptr};
      F32GemmB B;
      if (bkind == 0) B = {F32GemmB::Kind::kKn, b.data(), N};
      if (bkind == 1) B = {F32GemmB::Kind::kNk, bt.data(), K};
      if (bkind == 2) B = {F32GemmB::Kind::kPanels, nullptr, 0, &bp};
      if (bkind == 3) B = {F32GemmB::Kind::kCallback, nullptr, 0, nullptr, PackFromKn, &cb};
      if (bkind == 4) {
        B.kind = F32GemmB::Kind::kKnGroups;
        B.rows = GroupRows;
        B.ctx = &gc;
        B.group_rows = kGroupRows;
        B.ld = gc.ld;
        B.pack_rows = akind == 1;  // both in place and packed
      }
      if (bkind == 5) {
        B = {F32GemmB::Kind::kKn, b.data(), N};
        B.pack_rows = true;
      }
      if (bkind == 6) B = {F32GemmB::Kind::kPanels, nullptr, 0, &bp_half};
      F32GemmEpilogue ep;
      const int mode = (akind + bkind) % 3;
      if (mode == 1) {
        ep.alpha = 0.75f;
        ep.bias_m = bias_m.data();
        ep.bias_n = bias_n.data();
        ep.clamp = true;
        ep.min = -1.0f;
        ep.max = 2.0f;
      } else if (mode == 2) {
        ep.accumulate = true;
      }
      auto got = c0;
      F32Gemm(kr, M, N, K, A, B, got.data(), N, ep, threads);
      const std::string what = std::string(kr.name) + " M=" + std::to_string(M) +
                               " N=" + std::to_string(N) + " K=" + std::to_string(K) +
                               " A=" + std::to_string(akind) + " B=" + std::to_string(bkind) +
                               " threads=" + std::to_string(threads);
      const auto want = Reference(kr, M, N, K, a, b, c0, ep, bkind == 4 ? kGroupRows : 0);
      if (!checked_reference) {  // the reference itself against float64 sums
        ExpectNear(want, Naive(M, N, K, a, b, c0, ep), K, what + " (reference)");
        checked_reference = true;
      }
      ExpectBitIdentical(got, want, what);
    }
  }
}

TEST(F32GemmDriver, OddSizesEveryKernel) {
  const size_t sizes[] = {1, 7, 17, 33, 257};
  for (const auto& kr : F32GemmKernels()) {
    if (!kr.supported()) continue;
    for (size_t M : sizes)
      for (size_t N : sizes)
        for (size_t K : sizes) {
          if (M * N * K > 257 * 257 * 33) continue;  // keep the test fast
          CheckDriver(kr, M, N, K, 1);
        }
  }
}

TEST(F32GemmDriver, PortableAndDefaultLargeBlocks) {
  // Crosses the KC / NC / MC block boundaries.
  CheckDriver(PortableF32GemmKernel(), 20, 1100, 270, 1, false);
  CheckDriver(DefaultF32GemmKernel(), 400, 1030, 270, 1, false);
}

TEST(F32GemmDriver, BlockPackedAEveryKind) {
  // A packed per MC x KC block (single thread, split along M) for every A and B kind, with M
  // crossing the MC boundary, tail rows, and several K blocks; also the 14-row kernel, whose
  // MC block is not a multiple of 4.
  CheckDriver(DefaultF32GemmKernel(), 401, 45, 530, 1);
  if (const F32GemmKernel* k14 = FindF32GemmKernel("f32_gemm_14x32_avx512"); k14 && k14->supported())
    CheckDriver(*k14, 401, 45, 530, 1);
  CheckDriver(DefaultF32GemmKernel(), 401, 45, 530, 2);
}

TEST(F32GemmDriver, RowsAKernelBlocksAndThreads) {
  // Rows-A kernels read kMk A in place: M crossing the MC block with a tail tile, several K
  // blocks, lda > K (CheckDriver's A kind 3), split along M (threads 2, few column tiles) and
  // along N (threads 2, many column tiles, A shared by both threads unpacked).
  for (const auto& kr : F32GemmKernels()) {
    if (!kr.rows_a || !kr.supported()) continue;
    CheckDriver(kr, 401, 45, 530, 1);
    CheckDriver(kr, 401, 45, 530, 2);
    CheckDriver(kr, 33, 300, 70, 2);
    CheckDriver(kr, 5, 131, 9, 1);
    CheckDriver(kr, 20, 1100, 40, 1, false);  // past the column limit: A packed again
    CheckDriver(kr, 100, 700, 530, 1, false);  // two NC blocks, several MC blocks
  }
}

TEST(F32GemmDriver, SplitBKernelBlocksAndThreads) {
  // Split-B rows on half-width panels (CheckDriver's B kind 6): N tails of one and of one and a
  // half panels, several K blocks, M crossing the MC block, split along M and along N.
  for (const auto& kr : F32GemmKernels()) {
    if (!kr.split_b || !kr.supported()) continue;
    CheckDriver(kr, 401, 45, 530, 1);
    CheckDriver(kr, 401, 45, 530, 2);
    CheckDriver(kr, 33, 300, 70, 2);
    CheckDriver(kr, 30, 1100, 40, 1, false);
    CheckDriver(kr, 7, 97, 600, 1, false);
  }
}

// The row picked for prepacked panels: the split-B row for GEMMs that fill its tiles without
// padding M much more than the M row; the M row otherwise. Per ISA, whatever this CPU supports.
TEST(F32GemmTable, RowForPanels) {
  for (const auto& base : F32GemmKernels()) {
    if (&base != &*std::find_if(F32GemmKernels().begin(), F32GemmKernels().end(),
                                [&](const F32GemmKernel& k) { return std::string_view(k.isa) == base.isa; }))
      continue;  // first row of each ISA only
    const F32GemmKernel* split = nullptr;
    for (const auto& k : F32GemmKernels())
      if (k.split_b && std::string_view(k.isa) == base.isa && k.nr == 2 * base.nr) split = &k;
    for (size_t m : {1, 8, 24, 30, 32, 40, 96, 200, 1024})
      for (size_t n : {32, 64, 128, 1024}) {
        const F32GemmKernel& by_m = F32GemmRowForM(base, m);
        const F32GemmKernel& got = F32GemmRowForPanels(base, m, n);
        if (split == nullptr || m < 4 * split->mr || n < 2 * split->nr) {
          EXPECT_EQ(&got, &by_m) << base.name << " m=" << m << " n=" << n;
          continue;
        }
        const size_t pad_split = (m + split->mr - 1) / split->mr * split->mr;
        const size_t pad_m = (m + by_m.mr - 1) / by_m.mr * by_m.mr;
        EXPECT_EQ(&got, 20 * pad_split <= 21 * pad_m ? split : &by_m)
            << base.name << " m=" << m << " n=" << n;
      }
  }
  if (const F32GemmKernel* k8 = FindF32GemmKernel("f32_gemm_8x32_avx512")) {
    EXPECT_STREQ(F32GemmRowForPanels(*k8, 1024, 1024).name, "f32_gemm_6x64_avx512");
    EXPECT_STREQ(F32GemmRowForPanels(*k8, 32, 512).name, "f32_gemm_8x32_avx512");
    EXPECT_STREQ(F32GemmRowForPanels(*k8, 1, 4096).name, "f32_gemm_1x32_avx512");
  }
}

TEST(F32GemmDriver, AliasedRowStrideKn) {
  // B rows 4 KiB apart (N = 1024): read in place below 32 rows or K = 257, packed by the driver
  // from there; with tails and several K blocks, one and two threads.
  for (const F32GemmKernel* kr : {&DefaultF32GemmKernel(), &F32GemmKernelForUnpackedB(40, 1024)}) {
    CheckDriver(*kr, 31, 1024, 300, 1, false);
    CheckDriver(*kr, 40, 1024, 256, 1, false);
    CheckDriver(*kr, 40, 1024, 530, 1, false);
    CheckDriver(*kr, 40, 1024, 530, 2, false);
  }
}

TEST(F32GemmDriver, ThreadedMatchesSerial) {
  CheckDriver(DefaultF32GemmKernel(), 33, 257, 300, 3);
  CheckDriver(DefaultF32GemmKernel(), 257, 17, 33, 2);
}

TEST(F32GemmDriver, ZeroK) {
  const auto& kr = DefaultF32GemmKernel();
  CheckDriver(kr, 7, 17, 0, 1);
}

// Every column of a row is summed in the same order whichever tile, tail or thread computes it,
// and so is every row of a column: a constant B gives bit-identical columns, a constant A
// (every row the same) bit-identical rows, on every kernel row, for N across full tiles and
// tails (1000 = 31 x 32 + 8, 33, 65), M across tile heights and tails (1, 7, 13) and B as
// prepacked panels (the decode path at M = 1), read in place and packed per block. K = 4096
// (32 sum blocks) where ONNX's light models hit it (M = 1, N = 1000), else 600.
TEST(F32GemmDriver, ConstantOperandsGiveIdenticalColumnsAndRows) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> pos(0.0f, 1000.0f);  // large post-ReLU activations
  for (const auto& kr : F32GemmKernels()) {
    if (!kr.supported()) continue;
    for (size_t M : {1, 7, 13})
      for (size_t N : {1000, 33, 65}) {
        const size_t K = M == 1 && N == 1000 ? 4096 : 600;
        std::vector<float> a_rand(M * K), b_rand(K * N);
        for (auto& x : a_rand) x = pos(gen);
        for (auto& x : b_rand) x = pos(gen) * 1e-3f;
        std::vector<float> a_same(M * K);  // every row the same
        for (size_t m = 0; m < M; ++m)
          std::copy(a_rand.begin(), a_rand.begin() + K, a_same.begin() + m * K);
        const std::vector<float> b_const(K * N, 0.37f);
        auto bias_n = Random(N, 15);
        for (int bkind = 0; bkind < 3; ++bkind) {
          for (int pass = 0; pass < 2; ++pass) {  // 0: constant B, 1: constant A
            const auto& a = pass == 0 ? a_rand : a_same;
            const auto& b = pass == 0 ? b_const : b_rand;
            const size_t w = kr.split_b ? kr.nr / 2 : kr.nr;
            F32Panels bp = MakeF32PanelsFromKn(w, K, N, b.data(), N);
            CallbackCtx cb{b.data(), N};
            F32GemmB B;
            if (bkind == 0) B = {F32GemmB::Kind::kPanels, nullptr, 0, &bp};
            if (bkind == 1) B = {F32GemmB::Kind::kKn, b.data(), N};
            if (bkind == 2) B = {F32GemmB::Kind::kCallback, nullptr, 0, nullptr, PackFromKn, &cb};
            const F32GemmA A{F32GemmA::Kind::kMk, a.data(), K, nullptr};
            F32GemmEpilogue ep;
            if (pass == 1) ep.bias_n = bias_n.data();  // per column: rows stay equal
            std::vector<float> c(M * N);
            const int threads = bkind == 2 ? 2 : 1;
            F32Gemm(kr, M, N, K, A, B, c.data(), N, ep, threads);
            const std::string what = std::string(kr.name) + " M=" + std::to_string(M) +
                                     " N=" + std::to_string(N) + " B=" + std::to_string(bkind);
            for (size_t m = 0; m < M; ++m)
              for (size_t n = 0; n < N; ++n) {
                const float want = pass == 0 ? c[m * N] : c[n];
                ASSERT_EQ(std::bit_cast<uint32_t>(c[m * N + n]), std::bit_cast<uint32_t>(want))
                    << what << (pass == 0 ? " constant B" : " constant A") << " at m=" << m
                    << " n=" << n << ": " << c[m * N + n] << " != " << want;
              }
          }
        }
      }
  }
}

TEST(F32GemmPack, PanelsRoundTrip) {
  const size_t K = 17, N = 37, nr = 16;
  auto b = Random(K * N, 21);
  F32Panels p = MakeF32PanelsFromKn(nr, K, N, b.data(), N);
  auto bt = Transpose(b, K, N);
  F32Panels q = MakeF32PanelsFromNk(nr, K, N, bt.data(), K);
  ASSERT_EQ(p.num_panels(), 3u);
  for (size_t pi = 0; pi < p.num_panels(); ++pi)
    for (size_t k = 0; k < K; ++k)
      for (size_t w = 0; w < nr; ++w) {
        const size_t n = pi * nr + w;
        const float want = n < N ? b[k * N + n] : 0.0f;
        EXPECT_EQ(p.panel(pi)[k * nr + w], want);
        EXPECT_EQ(q.panel(pi)[k * nr + w], want);
      }
}

TEST(F32GemmPack, TransposingPackMatchesLayout) {
  // Source lines contiguous along k (A [M, K] rows, B given as [N, K]): widths that are and
  // are not multiples of 4, line counts with a remainder, K past the internal k block.
  for (size_t w : {size_t{4}, size_t{8}, size_t{14}, size_t{32}}) {
    for (size_t P : {size_t{1}, size_t{6}, size_t{45}}) {
      const size_t K = 301, ld = K + 3;
      auto src = Random(P * ld, 31);
      std::vector<float> dst(F32PanelsSize(w, K, P), NAN);
      PackF32GemmMkToPanelsMr(w, P, K, src.data(), ld, dst.data());
      for (size_t p = 0; p < (P + w - 1) / w * w; ++p)
        for (size_t k = 0; k < K; ++k) {
          const float want = p < P ? src[p * ld + k] : 0.0f;
          ASSERT_EQ(dst[(p / w) * K * w + k * w + p % w], want)
              << "w=" << w << " P=" << P << " p=" << p << " k=" << k;
        }
    }
  }
}

}  // namespace
}  // namespace vt::kernels
