// Winograd F(4x4, 3x3): filter transform, scalar transform rows, the row table and the band
// driver (contract in f32_winograd.h). Compiled without fused multiply-adds (CMakeLists.txt),
// like the AVX-512 row, so that the two give the same bits.
#include "kernels/conv/f32_winograd.h"

#include <omp.h>

#include <algorithm>

#include "kernels/conv/f32_winograd_inl.h"
#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {
namespace {

// The input patch of tile (tr, tw), channel c, zero outside the image.
void LoadPatch(const F32WinogradGeometry& g, const float* xc, int64_t tr, int64_t tw,
               float d[6][6]) {
  for (int i = 0; i < 6; ++i) {
    const int64_t r = 4 * tr + i - g.PH;
    for (int j = 0; j < 6; ++j) {
      const int64_t col = 4 * tw + j - g.PW;
      d[i][j] = r >= 0 && r < g.H && col >= 0 && col < g.W ? xc[r * g.W + col] : 0.0f;
    }
  }
}

}  // namespace

size_t F32WinogradScratchFloats(const F32WinogradGeometry& geo) {
  return 6 * WinogradRowPitch(geo.TW());
}

void f32_winograd_input_scalar(const F32WinogradGeometry& geo, const float* x, int64_t t0,
                               int64_t count, float* v, size_t ldv, size_t fstride,
                               float* /*scratch*/) {
  const int64_t TW = geo.TW(), C = geo.C;
  for (int64_t c = 0; c < C; ++c) {
    const float* xc = x + c * geo.H * geo.W;
    for (int64_t t = t0; t < t0 + count; ++t) {
      float d[6][6], tmp[6][6], col[6], out[6];
      LoadPatch(geo, xc, t / TW, t % TW, d);
      for (int j = 0; j < 6; ++j) {  // down each column
        for (int i = 0; i < 6; ++i) col[i] = d[i][j];
        WinogradInput6(col, out);
        for (int k = 0; k < 6; ++k) tmp[k][j] = out[k];
      }
      for (int k = 0; k < 6; ++k) {  // then along each row
        WinogradInput6(tmp[k], out);
        for (int l = 0; l < 6; ++l)
          v[static_cast<size_t>(k * 6 + l) * fstride + static_cast<size_t>(c) * ldv +
            static_cast<size_t>(t - t0)] = out[l];
      }
    }
  }
}

void f32_winograd_output_scalar(const F32WinogradGeometry& geo, int64_t M,
                                const F32WinogradEpilogue& ep, const float* mf, size_t ldm,
                                size_t fstride, int64_t t0, int64_t count, float* y) {
  const int64_t TW = geo.TW(), OH = geo.OH, OW = geo.OW;
  for (int64_t m = 0; m < M; ++m) {
    const float bias = ep.bias != nullptr ? ep.bias[m] : 0.0f;
    for (int64_t t = t0; t < t0 + count; ++t) {
      const int64_t tr = t / TW, tw = t % TW;
      float r[4][6], col[6], out[4];
      for (int l = 0; l < 6; ++l) {  // down each column
        for (int k = 0; k < 6; ++k)
          col[k] = mf[static_cast<size_t>(k * 6 + l) * fstride + static_cast<size_t>(m) * ldm +
                      static_cast<size_t>(t - t0)];
        WinogradOutput6(col, out);
        for (int i = 0; i < 4; ++i) r[i][l] = out[i];
      }
      for (int i = 0; i < 4; ++i) {  // then along each row
        WinogradOutput6(r[i], out);
        const int64_t oh = 4 * tr + i;
        for (int j = 0; j < 4; ++j) {
          const int64_t ow = 4 * tw + j;
          if (oh >= OH || ow >= OW) continue;
          float val = out[j] + bias;
          if (ep.clamp) {  // as vmaxps / vminps: a NaN becomes the bound
            val = val > ep.min ? val : ep.min;
            val = val < ep.max ? val : ep.max;
          }
          y[(m * OH + oh) * OW + ow] = val;
        }
      }
    }
  }
}

namespace {

const F32WinogradKernel kKernels[] = {
    {"f32_winograd_f4x3_avx512", "avx512", f32_winograd_input_avx512, f32_winograd_output_avx512,
     CpuHasAvx512},
    {"f32_winograd_f4x3_avx2", "avx2", f32_winograd_input_avx2, f32_winograd_output_avx2,
     CpuHasAvx2},
    {"f32_winograd_f4x3_scalar", "portable", f32_winograd_input_scalar,
     f32_winograd_output_scalar, AlwaysSupported},
};

}  // namespace

std::span<const F32WinogradKernel> F32WinogradKernels() { return kKernels; }

const F32WinogradKernel& DefaultF32WinogradKernel() {
  static const F32WinogradKernel& k =
      ChooseKernelRow(std::span<const F32WinogradKernel>(kKernels), "VT_F32_WINOGRAD_KERNEL");
  return k;
}

const F32WinogradKernel& F32WinogradKernelForIsa(std::string_view isa) {
  return ChooseKernelRowForIsa(std::span<const F32WinogradKernel>(kKernels), isa,
                               "VT_F32_WINOGRAD_KERNEL");
}

void TransformF32WinogradFilters(const float* g, size_t M, size_t C, float* u) {
  static constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                                      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                      {0, 0, 1}};
  // Pairs (m, c) in blocks: each block's 36 values per pair are computed into `tile`, then
  // written frequency by frequency as runs of consecutive c (not 36 scattered floats per pair,
  // which for large filters touch 36 pages each).
  constexpr size_t kBlock = 64;
  const size_t pairs = M * C;
  float tile[kBlock][kWinogradFrequencies];
  for (size_t p0 = 0; p0 < pairs; p0 += kBlock) {
    const size_t n = std::min(kBlock, pairs - p0);
    for (size_t i = 0; i < n; ++i) {
      const float* w = g + (p0 + i) * 9;
      double gw[6][3];  // G g
      for (int a = 0; a < 6; ++a)
        for (int j = 0; j < 3; ++j)
          gw[a][j] = kG[a][0] * w[j] + kG[a][1] * w[3 + j] + kG[a][2] * w[6 + j];
      for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b)
          tile[i][a * 6 + b] =
              static_cast<float>(gw[a][0] * kG[b][0] + gw[a][1] * kG[b][1] + gw[a][2] * kG[b][2]);
    }
    for (size_t f = 0; f < kWinogradFrequencies; ++f)
      for (size_t i = 0; i < n; ++i) u[f * pairs + p0 + i] = tile[i][f];
  }
}

std::vector<F32Panels> MakeF32WinogradFilterPanels(size_t mr, const float* g, size_t M, size_t C) {
  std::vector<float> u(kWinogradFrequencies * M * C);
  TransformF32WinogradFilters(g, M, C, u.data());
  std::vector<F32Panels> panels;
  panels.reserve(kWinogradFrequencies);
  for (size_t f = 0; f < kWinogradFrequencies; ++f)
    panels.push_back(MakeF32PanelsFromMk(mr, M, C, u.data() + f * M * C, C));
  return panels;
}

namespace {

// Per-thread buffers of the driver, reused across calls (fresh ones would page-fault).
struct WinogradScratch {
  AlignedFloats v, mf, rows;
};

WinogradScratch& ThreadWinogradScratch() {
  thread_local WinogradScratch s;
  return s;
}

// Tiles per band: the band's V (36 x C x T) and M (36 x M x T) within about 768 KiB of the L2
// cache, in whole multiples of the GEMM row's NR (the GEMM's columns).
int64_t BandTiles(const F32WinogradConv& c) {
  constexpr int64_t kBandFloats = int64_t{192} << 10;
  const int64_t nr = static_cast<int64_t>(c.gemm->nr);
  const int64_t fit = kBandFloats / (kWinogradFrequencies * (c.geo.C + c.M));
  const int64_t tiles = c.geo.TH() * c.geo.TW();
  return std::min(tiles, std::max(nr, fit / nr * nr));
}

void RunBand(const F32WinogradKernel& k, const F32WinogradConv& c, int64_t t0, int64_t count,
             int gemm_threads) {
  const F32WinogradGeometry& g = c.geo;
  const size_t T = static_cast<size_t>(count), C = static_cast<size_t>(g.C),
               M = static_cast<size_t>(c.M);
  const size_t vstride = F32WinogradFrequencyStride(C, T), mstride = F32WinogradFrequencyStride(M, T);
  WinogradScratch& s = ThreadWinogradScratch();
  s.v.Resize(kWinogradFrequencies * vstride);
  s.mf.Resize(kWinogradFrequencies * mstride);
  s.rows.Resize(F32WinogradScratchFloats(g));
  k.input(g, c.x, t0, count, s.v.data(), T, vstride, s.rows.data());
  for (size_t f = 0; f < kWinogradFrequencies; ++f) {
    const F32GemmA a{F32GemmA::Kind::kPanels, nullptr, 0, &c.u[f]};
    F32GemmB b;
    b.kind = F32GemmB::Kind::kKn;
    b.data = s.v.data() + f * vstride;
    b.ld = T;
    F32Gemm(*c.gemm, M, T, C, a, b, s.mf.data() + f * mstride, T, F32GemmEpilogue{}, gemm_threads);
  }
  k.output(g, c.M, c.epilogue, s.mf.data(), T, mstride, t0, count, c.y);
  if (c.tiles_done != nullptr)
    ForEachTileSegment(g.TW(), t0, count, [&](int64_t tr, int64_t tw0, int64_t tw1, int64_t) {
      c.tiles_done(c.tiles_ctx, tr, tw0, tw1);
    });
}

}  // namespace

void RunF32WinogradConv(const F32WinogradKernel& k, const F32WinogradConv& c, int threads) {
  const int64_t band = BandTiles(c), tiles = c.geo.TH() * c.geo.TW();
  const int64_t bands = (tiles + band - 1) / band;
  if (threads > 1 && bands > 1) {
#pragma omp parallel for num_threads(threads) schedule(dynamic)
    for (int64_t b = 0; b < bands; ++b)
      RunBand(k, c, b * band, std::min(band, tiles - b * band), 1);
    return;
  }
  for (int64_t b = 0; b < bands; ++b)
    RunBand(k, c, b * band, std::min(band, tiles - b * band), threads);
}

}  // namespace vt::kernels
