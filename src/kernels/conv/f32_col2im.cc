#include "kernels/conv/f32_col2im.h"

#include <algorithm>

#include "kernels/conv/conv_window.h"

namespace vt::kernels {
namespace {

struct Geo2d {
  int64_t M, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, OH, OW;
};

void Col2Im2d(const Geo2d& g, bool assign, int64_t ih0, int64_t ih1, const float* col, float* y) {
  const int64_t cols = (ih1 - ih0) * g.IW;
  if (assign && g.KW == g.SW && g.DW == 1 && g.PW == 0) {
    // Non-overlapping: each output row interleaves the KW col rows of one (m, jh).
    for (int64_t m = 0; m < g.M; ++m)
      for (int64_t jh = 0; jh < g.KH; ++jh) {
        const float* c = col + (m * g.KH + jh) * g.KW * cols;
        for (int64_t ih = ih0; ih < ih1; ++ih) {
          const int64_t oh = ih * g.SH - g.PH + jh * g.DH;
          if (oh < 0 || oh >= g.OH) continue;
          float* yr = y + (m * g.OH + oh) * g.OW;
          const float* cr = c + (ih - ih0) * g.IW;
          const int64_t iw_end = std::min(g.IW, g.OW / g.KW);
          if (g.KW == 2) {
            for (int64_t iw = 0; iw < iw_end; ++iw) {
              yr[2 * iw] = cr[iw];
              yr[2 * iw + 1] = cr[cols + iw];
            }
          } else {
            for (int64_t iw = 0; iw < iw_end; ++iw)
              for (int64_t jw = 0; jw < g.KW; ++jw) yr[iw * g.KW + jw] = cr[jw * cols + iw];
          }
        }
      }
    return;
  }
  for (int64_t m = 0; m < g.M; ++m) {
    float* ym = y + m * g.OH * g.OW;
    for (int64_t jh = 0; jh < g.KH; ++jh) {
      for (int64_t jw = 0; jw < g.KW; ++jw) {
        const float* c = col + ((m * g.KH + jh) * g.KW + jw) * cols;
        // Input columns whose output column lands inside [0, OW).
        int64_t lo, hi;
        ConvValidRange(jw * g.DW - g.PW, g.SW, g.OW, g.IW, &lo, &hi);
        for (int64_t ih = ih0; ih < ih1; ++ih) {
          const int64_t oh = ih * g.SH - g.PH + jh * g.DH;
          if (oh < 0 || oh >= g.OH) continue;
          const int64_t base = oh * g.OW + jw * g.DW - g.PW;  // output offset of iw = 0
          const float* cr = c + (ih - ih0) * g.IW;
          if (assign) {
            for (int64_t iw = lo; iw < hi; ++iw) ym[base + iw * g.SW] = cr[iw];
          } else if (g.SW == 1) {
            for (int64_t iw = lo; iw < hi; ++iw) ym[base + iw] += cr[iw];
          } else {
            for (int64_t iw = lo; iw < hi; ++iw) ym[base + iw * g.SW] += cr[iw];
          }
        }
      }
    }
  }
}

}  // namespace

void ScatterF32Col2Im(const F32Col2Im& p, int64_t in0_begin, int64_t in0_end, const float* col,
                      float* y) {
  if (p.rank == 1 || p.rank == 2) {
    const bool one = p.rank == 1;
    const int a = one ? 0 : 1;
    const Geo2d g{p.M,
                  one ? 1 : p.in[0],
                  p.in[a],
                  one ? 1 : p.kernel[0],
                  p.kernel[a],
                  one ? 1 : p.stride[0],
                  p.stride[a],
                  one ? 1 : p.dilation[0],
                  p.dilation[a],
                  one ? 0 : p.pad[0],
                  p.pad[a],
                  one ? 1 : p.out[0],
                  p.out[a]};
    if (one) {
      // Treat the slice as a 1-row image whose columns start at in0_begin.
      Geo2d g1 = g;
      g1.IW = in0_end - in0_begin;
      g1.PW = g.PW - in0_begin * g.SW;
      Col2Im2d(g1, p.assign, 0, 1, col, y);
    } else {
      Col2Im2d(g, p.assign, in0_begin, in0_end, col, y);
    }
    return;
  }
  const int R = p.rank;
  int64_t kvol = 1, inner = 1, out_sz = 1;
  for (int i = 0; i < R; ++i) {
    kvol *= p.kernel[i];
    out_sz *= p.out[i];
    if (i > 0) inner *= p.in[i];
  }
  // The col block's columns are the input positions from (in0_begin, 0, ..., 0) on.
  const ConvTapWalk walk{R, p.in, p.out, p.stride, p.dilation, p.pad};
  const int64_t cols = (in0_end - in0_begin) * inner;
  for (int64_t m = 0; m < p.M; ++m) {
    float* ym = y + m * out_sz;
    for (int64_t kk = 0; kk < kvol; ++kk) {
      int64_t tap[kMaxConvRank];
      UnflattenConvIndex(kk, p.kernel, R, tap);
      const float* c = col + (m * kvol + kk) * cols;
      if (p.assign) {
        ForEachTapPosition(walk, tap, in0_begin * inner, cols, [&](int64_t q, int64_t off) {
          if (off >= 0) ym[off] = c[q];
        });
      } else {
        ForEachTapPosition(walk, tap, in0_begin * inner, cols, [&](int64_t q, int64_t off) {
          if (off >= 0) ym[off] += c[q];
        });
      }
    }
  }
}

}  // namespace vt::kernels
