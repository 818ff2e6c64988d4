#include "kernels/conv/f32_conv_pack.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/conv/conv_window.h"
#include "kernels/cpu/parallel_pack.h"
#include "kernels/gemm/f32_gemm_pack.h"

namespace vt::kernels {
namespace {

// Copies nc contiguous floats into one row of consecutive panels (tail of the last panel
// zeroed). Fixed-size copies for the common panel widths so they compile to vector moves.
template <size_t NR>
inline void CopyRowToPanelsFixed(const float* src, size_t nc, float* d, size_t panel_stride) {
  size_t j = 0;
  for (; j + NR <= nc; j += NR, d += panel_stride) std::memcpy(d, src + j, NR * sizeof(float));
  if (j < nc) {
    std::memcpy(d, src + j, (nc - j) * sizeof(float));
    std::memset(d + (nc - j), 0, (NR - (nc - j)) * sizeof(float));
  }
}
inline void CopyRowToPanels(const float* src, size_t nc, size_t nr, float* d,
                            size_t panel_stride) {
  if (nr == 32) return CopyRowToPanelsFixed<32>(src, nc, d, panel_stride);
  if (nr == 16) return CopyRowToPanelsFixed<16>(src, nc, d, panel_stride);
  size_t j = 0;
  for (; j + nr <= nc; j += nr, d += panel_stride) std::memcpy(d, src + j, nr * sizeof(float));
  if (j < nc) {
    std::memcpy(d, src + j, (nc - j) * sizeof(float));
    std::memset(d + (nc - j), 0, (nr - (nc - j)) * sizeof(float));
  }
}

}  // namespace

size_t F32ConvPhasePlanesFloats(int64_t C, int64_t SH, int64_t SW, int64_t Hq, int64_t Wq) {
  // Wide-grid reads of the last plane run past it by up to (KW-1)*DW/SW < Wq floats.
  return static_cast<size_t>(C * SH * SW * Hq * Wq + Wq + 16);
}

void BuildF32ConvPhasePlanes(const float* x, int64_t C, int64_t H, int64_t W, int64_t PH,
                             int64_t PW, const F32ConvPhasePlanes& g, float* dst) {
  const int64_t plane = g.Hq * g.Wq;
  // Phases some tap reads; the others are only zeroed (wide-grid junk columns may run into
  // them, and they must hold finite values).
  bool used_h[64] = {}, used_w[64] = {};
  const bool small = g.SH <= 64 && g.SW <= 64;
  for (int64_t r = 0; r < g.KH; ++r) used_h[small ? (r * g.DH) % g.SH : 0] = true;
  for (int64_t s = 0; s < g.KW; ++s) used_w[small ? (s * g.DW) % g.SW : 0] = true;
  const bool all_w = !small || [&] {
    for (int64_t pw = 0; pw < g.SW; ++pw)
      if (!used_w[pw]) return false;
    return true;
  }();
  // Valid column range per phase: x column qw * SW + pw - PW inside [0, W).
  std::vector<int64_t> lo(static_cast<size_t>(g.SW)), hi(static_cast<size_t>(g.SW));
  for (int64_t pw = 0; pw < g.SW; ++pw)
    ConvValidRange(pw - PW, g.SW, W, g.Wq, &lo[static_cast<size_t>(pw)],
                   &hi[static_cast<size_t>(pw)]);
  for (int64_t c = 0; c < C; ++c) {
    const float* xc = x + c * H * W;
    for (int64_t ph = 0; ph < g.SH; ++ph) {
      float* rows0 = dst + (c * g.SH + ph) * g.SW * plane;  // phase (ph, 0)
      if (small && !used_h[ph]) {
        std::memset(rows0, 0, static_cast<size_t>(g.SW * plane) * sizeof(float));
        continue;
      }
      for (int64_t qh = 0; qh < g.Hq; ++qh) {
        const int64_t ih = qh * g.SH + ph - PH;
        const bool inside = ih >= 0 && ih < H;
        if (g.SW == 2 && all_w && inside) {
          // Deinterleave the row in one pass (the common stride-2 case): x[j] belongs to
          // phase (j + PW) % 2 at column (j + PW) / 2.
          float* ph2[2] = {rows0 + qh * g.Wq, rows0 + plane + qh * g.Wq};
          std::memset(ph2[0], 0, static_cast<size_t>(g.Wq) * sizeof(float));
          std::memset(ph2[1], 0, static_cast<size_t>(g.Wq) * sizeof(float));
          const float* xr = xc + ih * W;
          int64_t j = 0;
          if (PW % 2 != 0) {
            if ((PW - 1) / 2 < g.Wq) ph2[1][(PW - 1) / 2] = xr[0];
            j = 1;
          }
          const int64_t q0 = (j + PW) / 2;
          const int64_t pairs = std::max<int64_t>(0, std::min((W - j) / 2, g.Wq - q0));
          float* e = ph2[0] + q0;
          float* o = ph2[1] + q0;
          const float* xp = xr + j;
          for (int64_t i = 0; i < pairs; ++i) {
            e[i] = xp[2 * i];
            o[i] = xp[2 * i + 1];
          }
          j += 2 * pairs;
          if (j < W && q0 + pairs < g.Wq) ph2[0][q0 + pairs] = xr[j];
          continue;
        }
        for (int64_t pw = 0; pw < g.SW; ++pw) {
          float* row = rows0 + pw * plane + qh * g.Wq;
          const int64_t l = lo[static_cast<size_t>(pw)], h = hi[static_cast<size_t>(pw)];
          if (!inside || (small && !used_w[pw])) {
            std::memset(row, 0, static_cast<size_t>(g.Wq) * sizeof(float));
            continue;
          }
          const int64_t base = ih * W + pw - PW;  // x offset of qw = 0 (may be outside row)
          std::memset(row, 0, static_cast<size_t>(l) * sizeof(float));
          if (g.SW == 1) {
            std::memcpy(row + l, xc + base + l, static_cast<size_t>(h - l) * sizeof(float));
          } else {
            for (int64_t qw = l; qw < h; ++qw) row[qw] = xc[base + qw * g.SW];
          }
          std::memset(row + h, 0, static_cast<size_t>(g.Wq - h) * sizeof(float));
        }
      }
    }
  }
  const size_t total = F32ConvPhasePlanesFloats(C, g.SH, g.SW, g.Hq, g.Wq);
  const size_t body = static_cast<size_t>(C * g.SH * g.SW * plane);
  std::memset(dst + body, 0, (total - body) * sizeof(float));
}

size_t F32ConvPhasePlanesChannelStride(const F32ConvPhasePlanes& g) {
  return static_cast<size_t>(g.SH * g.SW * g.Hq * g.Wq);
}

int64_t F32ConvPhasePlanesTapOffset(const F32ConvPhasePlanes& g, size_t tap) {
  const int64_t r = static_cast<int64_t>(tap) / g.KW, s = static_cast<int64_t>(tap) % g.KW;
  const int64_t rd = r * g.DH, sd = s * g.DW;
  return ((rd % g.SH) * g.SW + sd % g.SW) * g.Hq * g.Wq + (rd / g.SH) * g.Wq + sd / g.SW;
}

const float* F32ConvPhasePlanesTapRows(const void* ctx, size_t tap) {
  const auto& g = *static_cast<const F32ConvPhasePlanes*>(ctx);
  return g.planes + F32ConvPhasePlanesTapOffset(g, tap);
}

void PackF32ConvPhasePlanesToPanelsNr(const void* ctx, size_t k0, size_t kc, size_t n0,
                                      size_t nc, size_t nr, float* dst) {
  const auto& g = *static_cast<const F32ConvPhasePlanes*>(ctx);
  const int64_t khw = g.KH * g.KW, plane = g.Hq * g.Wq;
  const size_t panel_stride = kc * nr;
  for (size_t kk = 0; kk < kc; ++kk) {
    const int64_t k = static_cast<int64_t>(k0 + kk);
    const int64_t c = k / khw, r = (k / g.KW) % g.KH, s = k % g.KW;
    const int64_t rd = r * g.DH, sd = s * g.DW;
    const float* src = g.planes + ((c * g.SH + rd % g.SH) * g.SW + sd % g.SW) * plane +
                       (rd / g.SH) * g.Wq + sd / g.SW + static_cast<int64_t>(n0);
    CopyRowToPanels(src, nc, nr, dst + kk * nr, panel_stride);
  }
}

void PackF32ConvChwNdToPanelsNr(const void* ctx, size_t k0, size_t kc, size_t n0, size_t nc,
                                size_t nr, float* dst) {
  const auto& p = *static_cast<const F32ConvChwNd*>(ctx);
  const int R = p.rank;
  int64_t kvol = 1, invol = 1;
  for (int i = 0; i < R; ++i) {
    kvol *= p.kernel[i];
    invol *= p.in[i];
  }
  const ConvTapWalk walk{R, p.out, p.in, p.stride, p.dilation, p.pad};
  const size_t panel_stride = kc * nr;
  for (size_t kk = 0; kk < kc; ++kk) {
    const int64_t k = static_cast<int64_t>(k0 + kk);
    int64_t tap[kMaxConvRank];
    UnflattenConvIndex(k % kvol, p.kernel, R, tap);
    const float* xc = p.x + k / kvol * invol;
    float* d = dst + kk * nr;
    size_t w = 0;
    ForEachTapPosition(walk, tap, static_cast<int64_t>(n0), static_cast<int64_t>(nc),
                       [&](int64_t, int64_t off) {
                         d[w] = off >= 0 ? xc[off] : 0.0f;
                         if (++w == nr) {
                           w = 0;
                           d += panel_stride;
                         }
                       });
    if (w != 0) std::memset(d + w, 0, (nr - w) * sizeof(float));
  }
}

namespace {

// Panels [p0, p1). For each channel c, each of the panel's filters reads its `taps` values
// (contiguous in the source) and writes them to the panel rows (tap, c), tap = 0.., which lie
// C * mr floats apart: `taps` write streams that each advance mr floats per channel.
void PackTapMajorPanels(size_t mr, size_t M, size_t C, size_t taps, const float* w, size_t p0,
                        size_t p1, float* dst) {
  const size_t k = C * taps, tap_stride = C * mr;
  for (size_t p = p0; p < p1; ++p) {
    const size_t m0 = p * mr, rows = std::min(mr, M - m0);
    float* d = dst + p * k * mr;
    const float* s = w + m0 * k;  // filter m0, channel 0
    for (size_t c = 0; c < C; ++c, d += mr, s += taps) {
      const float* line = s;
      for (size_t r = 0; r < rows; ++r, line += k) {
        float* dt = d + r;
        for (size_t t = 0; t < taps; ++t, dt += tap_stride) *dt = line[t];
      }
      for (size_t r = rows; r < mr; ++r) {
        float* dt = d + r;
        for (size_t t = 0; t < taps; ++t, dt += tap_stride) *dt = 0.0f;
      }
    }
  }
}

}  // namespace

void PackF32ConvFiltersTapMajorToPanelsMr(size_t mr, size_t M, size_t C, size_t taps,
                                          const float* w, float* dst) {
  // One tap: the filters are already [M, K] rows.
  if (taps == 1) return PackF32GemmMkToPanelsMr(mr, M, C, w, C, dst);
  const size_t panels = (M + mr - 1) / mr;
  const int threads = ParallelPackThreads(panels * mr * C * taps * sizeof(float), panels);
  if (threads <= 1) return PackTapMajorPanels(mr, M, C, taps, w, 0, panels, dst);
#pragma omp parallel num_threads(threads)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    const size_t n = static_cast<size_t>(omp_get_num_threads());
    PackTapMajorPanels(mr, M, C, taps, w, panels * t / n, panels * (t + 1) / n, dst);
  }
}

void PackF32ConvFiltersTapMajorToPanelsMrReference(size_t mr, size_t M, size_t C, size_t taps,
                                                   const float* w, float* dst) {
  const size_t k = C * taps, padded = (M + mr - 1) / mr * mr;
  for (size_t m = 0; m < padded; ++m)
    for (size_t t = 0; t < taps; ++t)
      for (size_t c = 0; c < C; ++c)
        dst[(m / mr) * k * mr + (t * C + c) * mr + m % mr] =
            m < M ? w[(m * C + c) * taps + t] : 0.0f;
}

}  // namespace vt::kernels
