// AVX-512F multi-tap depthwise kernel (contract in f32_dwconv.h). This file alone is compiled
// with AVX-512 flags; it is only called after run-time CPU detection.
//
// The loop is bound by loads (one per FMA in a plain multi-tap filter), so rows are processed
// four at a time: input offset off[t] + j * x_pitch serves tap t of row j, and taps of
// different rows often share an offset (a 3x3 filter over 4 rows needs 18 distinct loads for
// 36 FMAs). The schedule of distinct offsets is built once per call.
#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>

#include "kernels/conv/f32_dwconv.h"

namespace vt::kernels {
namespace {

constexpr int kRows = 4;
constexpr size_t kMaxTaps = 64;  // larger filters take the single-row path

struct Entry {
  int64_t off;     // relative to the block's first row
  unsigned mask;   // rows j that use this load
  float w[kRows];  // weight for row j
};

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

// kRows rows x NV vectors starting at column i.
template <int NV>
__attribute__((always_inline)) inline void BlockStep(const F32DwConvParams& p,
                                                     const Entry* entries, size_t n_entries,
                                                     const float* x, int tail, float* y) {
  const __mmask16 last = tail >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << tail) - 1u);
  __m512 acc[kRows][NV];
#pragma GCC unroll 4
  for (int j = 0; j < kRows; ++j)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[j][v] = _mm512_set1_ps(p.bias);
  for (size_t e = 0; e < n_entries; ++e) {
    const Entry& en = entries[e];
    const float* xe = x + en.off;
    __m512 xv[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      xv[v] = v == NV - 1 ? _mm512_maskz_loadu_ps(last, xe + 16 * v) : _mm512_loadu_ps(xe + 16 * v);
#pragma GCC unroll 4
    for (int j = 0; j < kRows; ++j) {
      if (!(en.mask & (1u << j))) continue;
      const __m512 wv = _mm512_set1_ps(en.w[j]);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[j][v] = _mm512_fmadd_ps(wv, xv[v], acc[j][v]);
    }
  }
  const __m512 lo = _mm512_set1_ps(p.min), hi = _mm512_set1_ps(p.max);
#pragma GCC unroll 4
  for (int j = 0; j < kRows; ++j)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      __m512 r = acc[j][v];
      if (p.clamp) r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
      _mm512_mask_storeu_ps(y + j * p.y_pitch + 16 * v, v == NV - 1 ? last : __mmask16(0xFFFF),
                            r);
    }
}

}  // namespace

void f32_dwconv_multitap_avx512(const F32DwConvParams* pp, const float* x, float* y) {
  const F32DwConvParams& p = *pp;
  size_t r = 0;
  if (p.rows >= kRows && p.taps <= kMaxTaps) {
    // Distinct offsets of a kRows-row block, each with the weight it carries for every row.
    Entry entries[kMaxTaps * kRows];
    size_t n = 0;
    for (size_t t = 0; t < p.taps; ++t)
      for (int j = 0; j < kRows; ++j) {
        const int64_t u = p.off[t] + static_cast<int64_t>(j * p.x_pitch);
        size_t e = 0;
        while (e < n && entries[e].off != u) ++e;
        if (e == n) {
          entries[n] = Entry{u, 0u, {0, 0, 0, 0}};
          ++n;
        }
        entries[e].mask |= 1u << j;
        entries[e].w[j] += p.w[t];
      }
    std::sort(entries, entries + n, [](const Entry& a, const Entry& b) { return a.off < b.off; });
    for (; r + kRows <= p.rows; r += kRows) {
      const float* xb = x + r * p.x_pitch;
      float* yb = y + r * p.y_pitch;
      size_t i = 0;
      for (; i + 32 <= p.width; i += 32) BlockStep<2>(p, entries, n, xb + i, 16, yb + i);
      const size_t left = p.width - i;
      if (left > 16) {
        BlockStep<2>(p, entries, n, xb + i, static_cast<int>(left - 16), yb + i);
      } else if (left > 0) {
        BlockStep<1>(p, entries, n, xb + i, static_cast<int>(left), yb + i);
      }
    }
  }
  for (; r < p.rows; ++r) Row(p, x + r * p.x_pitch, y + r * p.y_pitch);
}

}  // namespace vt::kernels
