// AVX-512F multi-tap depthwise kernel (contract in f32_dwconv.h). This file alone is compiled
// with AVX-512 flags; it is only called after run-time CPU detection.
//
// A plain multi-tap filter issues one vector load per FMA, and loads, not FMAs, bound it. Dense
// 3x3 and 5x5 filters (every stride-1 depthwise layer of the reference models) therefore get
// register-blocked kernels that share each load between several output rows, and so do their
// stride-2 forms ((2, 1), (1, 2), (2, 2): one dense sub-filter per phase plane); any other
// filter runs the generic row loop.
#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>

#include "kernels/conv/f32_dwconv.h"

namespace vt::kernels {
namespace {

// NV vectors of one row; `tail` = valid lanes of the last vector (1..16).
template <int NV>
__attribute__((always_inline)) inline void RowStep(const F32DwConvParams& p, const float* x,
                                                   int tail, float* y) {
  const __mmask16 last = tail >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << tail) - 1u);
  __m512 acc[NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) acc[v] = _mm512_set1_ps(p.bias);
  for (size_t t = 0; t < p.taps; ++t) {
    const __m512 wv = _mm512_set1_ps(p.w[t]);
    const float* xt = x + p.off[t];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      const __m512 xv = v == NV - 1 ? _mm512_maskz_loadu_ps(last, xt + 16 * v)
                                    : _mm512_loadu_ps(xt + 16 * v);
      acc[v] = _mm512_fmadd_ps(wv, xv, acc[v]);
    }
  }
  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    __m512 r = acc[v];
    if (p.clamp) r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
    _mm512_mask_storeu_ps(y + 16 * v, v == NV - 1 ? last : __mmask16(0xFFFF), r);
  }
}

void Row(const F32DwConvParams& p, const float* x, float* y) {
  size_t i = 0;
  // Eight independent accumulators cover the FMA latency.
  for (; i + 128 <= p.width; i += 128) RowStep<8>(p, x + i, 16, y + i);
  if (i + 64 <= p.width) {
    RowStep<4>(p, x + i, 16, y + i);
    i += 64;
  }
  const size_t left = p.width - i;
  if (left > 48) {
    RowStep<4>(p, x + i, static_cast<int>(left - 48), y + i);
  } else if (left > 32) {
    RowStep<3>(p, x + i, static_cast<int>(left - 32), y + i);
  } else if (left > 16) {
    RowStep<2>(p, x + i, static_cast<int>(left - 16), y + i);
  } else if (left > 0) {
    RowStep<1>(p, x + i, static_cast<int>(left), y + i);
  }
}

// Dense KH x KW filters (off[r * KW + s] = off[0] + r * x_pitch + s, i.e. stride 1 and no
// dilation in plane coordinates): R output rows at a time with the weights held in registers.
// Input row rho (of the R + KH - 1 the block reads) is loaded once per column shift s and feeds
// output rows rho - r for every filter row r, so a 3x3 filter over 4 rows needs 18 loads for
// 36 FMAs instead of 36.
template <int KH, int KW, int R, int NV>
__attribute__((always_inline)) inline void DenseStep(const F32DwConvParams& p,
                                                     const __m512 (&wv)[KH * KW], const float* x,
                                                     int tail, float* y) {
  const __mmask16 last = tail >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << tail) - 1u);
  __m512 acc[R][NV];
#pragma GCC unroll 8
  for (int j = 0; j < R; ++j)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[j][v] = _mm512_set1_ps(p.bias);
#pragma GCC unroll 16
  for (int rho = 0; rho < R + KH - 1; ++rho) {
#pragma GCC unroll 8
    for (int s = 0; s < KW; ++s) {
      const float* xs = x + rho * static_cast<int64_t>(p.x_pitch) + s;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const __m512 xv = v == NV - 1 ? _mm512_maskz_loadu_ps(last, xs + 16 * v)
                                      : _mm512_loadu_ps(xs + 16 * v);
#pragma GCC unroll 8
        for (int r = 0; r < KH; ++r) {
          const int j = rho - r;
          if (j >= 0 && j < R) acc[j][v] = _mm512_fmadd_ps(wv[r * KW + s], xv, acc[j][v]);
        }
      }
    }
  }
  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
#pragma GCC unroll 8
  for (int j = 0; j < R; ++j)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      __m512 r = acc[j][v];
      if (p.clamp) r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
      _mm512_mask_storeu_ps(y + j * p.y_pitch + 16 * v, v == NV - 1 ? last : __mmask16(0xFFFF),
                            r);
    }
}

// Rows [0, rows - rows % R) of a dense filter; returns the first row left for Row().
template <int KH, int KW, int R, int NV>
size_t DenseRows(const F32DwConvParams& p, const float* x, float* y) {
  __m512 wv[KH * KW];
#pragma GCC unroll 32
  for (int t = 0; t < KH * KW; ++t) wv[t] = _mm512_set1_ps(p.w[t]);
  const float* x0 = x + p.off[0];
  size_t r = 0;
  for (; r + R <= p.rows; r += R) {
    const float* xb = x0 + r * p.x_pitch;
    float* yb = y + r * p.y_pitch;
    size_t i = 0;
    for (; i + 16 * NV <= p.width; i += 16 * NV) DenseStep<KH, KW, R, NV>(p, wv, xb + i, 16, yb + i);
    for (; i < p.width; i += 16)
      DenseStep<KH, KW, R, 1>(p, wv, xb + i, static_cast<int>(std::min<size_t>(16, p.width - i)),
                              yb + i);
  }
  return r;
}

// True when the offsets form a dense kh x kw grid in rows of x_pitch.
bool IsDense(const F32DwConvParams& p, int kh, int kw) {
  if (p.taps != static_cast<size_t>(kh) * static_cast<size_t>(kw)) return false;
  for (int t = 0; t < kh * kw; ++t)
    if (p.off[t] != p.off[0] + (t / kw) * static_cast<int64_t>(p.x_pitch) + t % kw) return false;
  return true;
}

// Strided dense filters: in phase-plane coordinates a stride-(SH, SW) KH x KW filter splits
// into SH * SW dense sub-filters, one per phase plane; sub-filter (ph, pw) holds the taps
// r = rr * SH + ph, s = ss * SW + pw at off[ph * KW + pw] + rr * x_pitch + ss. Each is
// register-blocked like DenseStep, all accumulating into the same R output rows. The loads are
// ordered so that every output still takes its taps in filter order (r, then s), as Row() and
// DenseStep() do: input row rho of phase row ph feeds tap row r = (rho - j) * SH + ph of output
// row j, and rho ascending, then ph, then s walks each output's taps in that order. Every output
// position is then summed the same way, whichever step computes it.
template <int KH, int KW, int SH, int SW, int R, int NV>
__attribute__((always_inline)) inline void PhasedStep(const F32DwConvParams& p,
                                                      const __m512 (&wv)[KH * KW],
                                                      const float* x, int tail, float* y) {
  const __mmask16 last = tail >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << tail) - 1u);
  constexpr int kRr = (KH + SH - 1) / SH;  // tap rows per phase row, at most
  __m512 acc[R][NV];
#pragma GCC unroll 8
  for (int j = 0; j < R; ++j)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[j][v] = _mm512_set1_ps(p.bias);
#pragma GCC unroll 16
  for (int rho = 0; rho < R + kRr - 1; ++rho) {
#pragma GCC unroll 4
    for (int ph = 0; ph < SH; ++ph) {
      const int khp = (KH - ph + SH - 1) / SH;
      if (rho >= R + khp - 1) continue;
#pragma GCC unroll 8
      for (int s = 0; s < KW; ++s) {
        const float* xs = x + p.off[ph * KW + s % SW] + rho * static_cast<int64_t>(p.x_pitch) +
                          s / SW;
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
          const __m512 xv = v == NV - 1 ? _mm512_maskz_loadu_ps(last, xs + 16 * v)
                                        : _mm512_loadu_ps(xs + 16 * v);
#pragma GCC unroll 8
          for (int rr = 0; rr < kRr; ++rr) {
            const int j = rho - rr;
            if (rr < khp && j >= 0 && j < R)
              acc[j][v] = _mm512_fmadd_ps(wv[(rr * SH + ph) * KW + s], xv, acc[j][v]);
          }
        }
      }
    }
  }
  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
#pragma GCC unroll 8
  for (int j = 0; j < R; ++j)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      __m512 r = acc[j][v];
      if (p.clamp) r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
      _mm512_mask_storeu_ps(y + j * p.y_pitch + 16 * v, v == NV - 1 ? last : __mmask16(0xFFFF),
                            r);
    }
}

// Rows [0, rows - rows % R) of a strided dense filter; returns the first row left for Row().
template <int KH, int KW, int SH, int SW, int R, int NV>
size_t PhasedRows(const F32DwConvParams& p, const float* x, float* y) {
  __m512 wv[KH * KW];
#pragma GCC unroll 32
  for (int t = 0; t < KH * KW; ++t) wv[t] = _mm512_set1_ps(p.w[t]);
  size_t r = 0;
  for (; r + R <= p.rows; r += R) {
    const float* xb = x + r * p.x_pitch;
    float* yb = y + r * p.y_pitch;
    size_t i = 0;
    for (; i + 16 * NV <= p.width; i += 16 * NV)
      PhasedStep<KH, KW, SH, SW, R, NV>(p, wv, xb + i, 16, yb + i);
    for (; i < p.width; i += 16)
      PhasedStep<KH, KW, SH, SW, R, 1>(
          p, wv, xb + i, static_cast<int>(std::min<size_t>(16, p.width - i)), yb + i);
  }
  return r;
}

// True when the offsets are the phase-plane form of a dense kh x kw filter with strides
// (sh, sw) (see PhasedStep).
bool IsPhased(const F32DwConvParams& p, int kh, int kw, int sh, int sw) {
  if (p.taps != static_cast<size_t>(kh) * static_cast<size_t>(kw)) return false;
  for (int r = 0; r < kh; ++r)
    for (int s = 0; s < kw; ++s) {
      const int64_t base = p.off[(r % sh) * kw + s % sw];
      if (p.off[r * kw + s] != base + (r / sh) * static_cast<int64_t>(p.x_pitch) + s / sw)
        return false;
    }
  return true;
}

// The register-blocked kernel for a strided 3x3 / 5x5 filter, or null.
using RowsFn = size_t (*)(const F32DwConvParams&, const float*, float*);
RowsFn PhasedKernel(const F32DwConvParams& p) {
  if (IsPhased(p, 3, 3, 2, 1)) return PhasedRows<3, 3, 2, 1, 4, 2>;
  if (IsPhased(p, 3, 3, 1, 2)) return PhasedRows<3, 3, 1, 2, 4, 2>;
  if (IsPhased(p, 3, 3, 2, 2)) return PhasedRows<3, 3, 2, 2, 4, 2>;
  if (IsPhased(p, 5, 5, 2, 1)) return PhasedRows<5, 5, 2, 1, 2, 2>;
  if (IsPhased(p, 5, 5, 1, 2)) return PhasedRows<5, 5, 1, 2, 2, 2>;
  if (IsPhased(p, 5, 5, 2, 2)) return PhasedRows<5, 5, 2, 2, 2, 2>;
  return nullptr;
}

}  // namespace

void f32_dwconv_multitap_avx512(const F32DwConvParams* pp, const float* x, float* y) {
  const F32DwConvParams& p = *pp;
  size_t r = 0;
  if (p.rows > 1 && IsDense(p, 3, 3)) {
    r = DenseRows<3, 3, 4, 2>(p, x, y);
  } else if (p.rows > 1 && IsDense(p, 5, 5)) {
    r = DenseRows<5, 5, 2, 2>(p, x, y);
  } else if (p.rows > 1) {
    if (RowsFn fn = PhasedKernel(p)) r = fn(p, x, y);
  }
  for (; r < p.rows; ++r) Row(p, x + r * p.x_pitch, y + r * p.y_pitch);
}

}  // namespace vt::kernels
