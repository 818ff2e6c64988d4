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

// A copy loop keeps few cache lines in flight (its stores fill the store queue first), and
// the hardware prefetchers did not keep the input rows ahead of it (docs/benchmarks.md,
// "Phase planes in memory order"). So each row copied asks for the row kPrefetchBytes ahead.
constexpr int64_t kPrefetchBytes = 2048;
inline void PrefetchRow(const float* row, int64_t n) {
  constexpr int64_t kLineFloats = 16;
  for (int64_t i = 0; i < n; i += kLineFloats) __builtin_prefetch(row + i, 0, 3);
  __builtin_prefetch(row + n - 1, 0, 3);
}

// Zeroes row[0, lo) and row[hi, n) of a row whose columns [lo, hi) are written next (all of
// it when the range is empty).
inline void ZeroOutside(float* row, int64_t lo, int64_t hi, int64_t n) {
  if (hi <= lo) lo = hi = n;
  std::memset(row, 0, static_cast<size_t>(lo) * sizeof(float));
  std::memset(row + hi, 0, static_cast<size_t>(n - hi) * sizeof(float));
}

// The two column phases of one stride-2 row of x (xr = the row, leading pad PW): e[q] =
// xr[2 q - PW] for q in [l0, h0), o[q] = xr[2 q + 1 - PW] for q in [l1, h1), zero elsewhere
// in [0, n). One pass over the columns both phases read.
void DeinterleaveRowPair(const float* xr, int64_t PW, int64_t l0, int64_t h0, int64_t l1,
                         int64_t h1, int64_t n, float* e, float* o) {
  ZeroOutside(e, l0, h0, n);
  ZeroOutside(o, l1, h1, n);
  const auto even = [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) e[q] = xr[2 * q - PW];
  };
  const auto odd = [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) o[q] = xr[2 * q + 1 - PW];
  };
  const int64_t a = std::max(l0, l1), b = std::max(a, std::min(h0, h1));
  even(l0, std::min(a, h0));
  odd(l1, std::min(a, h1));
  if (a < b) {
    const float* src = xr + (2 * a - PW);  // both phases of columns [a, b) lie in the row
    float* ea = e + a;
    float* oa = o + a;
    for (int64_t i = 0; i < b - a; ++i) {
      ea[i] = src[2 * i];
      oa[i] = src[2 * i + 1];
    }
  }
  even(std::max(b, l0), h0);
  odd(std::max(b, l1), h1);
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
  // (On the stack for the usual strides: this runs once per channel and band.)
  constexpr int64_t kStackPhases = 16;
  int64_t lo_s[kStackPhases], hi_s[kStackPhases];
  std::vector<int64_t> lo_v, hi_v;
  if (g.SW > kStackPhases) {
    lo_v.resize(static_cast<size_t>(g.SW));
    hi_v.resize(static_cast<size_t>(g.SW));
  }
  int64_t* lo = g.SW > kStackPhases ? lo_v.data() : lo_s;
  int64_t* hi = g.SW > kStackPhases ? hi_v.data() : hi_s;
  for (int64_t pw = 0; pw < g.SW; ++pw) ConvValidRange(pw - PW, g.SW, W, g.Wq, &lo[pw], &hi[pw]);
  const auto zero = [&](float* row) {
    std::memset(row, 0, static_cast<size_t>(g.Wq) * sizeof(float));
  };
  // Rows asked for ahead of the one copied: at least kPrefetchBytes further on.
  const int64_t row_bytes = std::max<int64_t>(W, 1) * static_cast<int64_t>(sizeof(float));
  const int64_t ahead = (kPrefetchBytes + row_bytes - 1) / row_bytes;
  const int64_t last_row = std::min(H, g.Hq * g.SH - PH);  // past the last input row read
  for (int64_t c = 0; c < C; ++c) {
    const float* xc = x + c * H * W;
    float* dc = dst + c * g.SH * g.SW * plane;
    // Input rows in memory order (row qh of each row phase in turn): one forward stream
    // through the channel, which the hardware prefetchers follow; a pass per row phase would
    // read every SH-th row, twice over.
    for (int64_t qh = 0; qh < g.Hq; ++qh) {
      for (int64_t ph = 0; ph < g.SH; ++ph) {
        float* rows0 = dc + ph * g.SW * plane + qh * g.Wq;  // row qh of phase (ph, 0)
        const int64_t ih = qh * g.SH + ph - PH;
        if ((small && !used_h[ph]) || ih < 0 || ih >= H) {
          for (int64_t pw = 0; pw < g.SW; ++pw) zero(rows0 + pw * plane);
          continue;
        }
        const float* xr = xc + ih * W;  // plane column qw of phase pw: xr[qw * SW + pw - PW]
        if (ih + ahead < last_row) PrefetchRow(xr + ahead * W, W);
        if (g.SW == 2 && all_w) {
          DeinterleaveRowPair(xr, PW, lo[0], hi[0], lo[1], hi[1], g.Wq, rows0, rows0 + plane);
          continue;
        }
        for (int64_t pw = 0; pw < g.SW; ++pw) {
          float* row = rows0 + pw * plane;
          const int64_t l = lo[pw], h = hi[pw];
          if (small && !used_w[pw]) {
            zero(row);
            continue;
          }
          ZeroOutside(row, l, h, g.Wq);
          if (g.SW == 1) {
            std::memcpy(row + l, xr + (l - PW), static_cast<size_t>(h - l) * sizeof(float));
          } else {
            for (int64_t qw = l; qw < h; ++qw) row[qw] = xr[qw * g.SW + pw - PW];
          }
        }
      }
    }
  }
  const size_t total = F32ConvPhasePlanesFloats(C, g.SH, g.SW, g.Hq, g.Wq);
  const size_t body = static_cast<size_t>(C * g.SH * g.SW * plane);
  std::memset(dst + body, 0, (total - body) * sizeof(float));
}

void PrefetchF32ConvPhasePlanesInput(const float* x, int64_t H, int64_t W, int64_t PH,
                                     const F32ConvPhasePlanes& g, int64_t bytes) {
  const int64_t r0 = std::clamp<int64_t>(-PH, 0, H);
  const int64_t r1 = std::clamp<int64_t>(g.Hq * g.SH - PH, r0, H);
  const int64_t n = std::min((r1 - r0) * W, bytes / static_cast<int64_t>(sizeof(float)));
  if (n > 0) PrefetchRow(x + r0 * W, n);
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
