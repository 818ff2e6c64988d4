// AVX-512F direct convolution for few input channels (f32_conv_direct.h). Compiled with
// -ffp-contract=off: the only fused multiply-adds are the summation's own.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/conv/f32_conv_direct.h"
#include "kernels/cpu/flush_denormals.h"

// GCC 12's min/max intrinsics trip -Wmaybe-uninitialized on their own placeholder operand.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace vt::kernels {
namespace {

constexpr int64_t kTileCols = kF32DirectConvTileCols;

// x[2 i] -> e[i], x[2 i + 1] -> o[i] for i < n.
void Deinterleave(const float* x, int64_t n, float* e, float* o) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 a = _mm512_loadu_ps(x + 2 * i), b = _mm512_loadu_ps(x + 2 * i + 16);
    _mm512_storeu_ps(e + i, _mm512_permutex2var_ps(a, even, b));
    _mm512_storeu_ps(o + i, _mm512_permutex2var_ps(a, odd, b));
  }
  for (; i < n; ++i) {
    e[i] = x[2 * i];
    o[i] = x[2 * i + 1];
  }
}

// Zeroes row[0, lo) and row[hi, pitch) of a phase row whose columns [lo, hi) are written.
void ZeroOutside(float* row, int64_t lo, int64_t hi, int64_t pitch) {
  lo = std::clamp<int64_t>(lo, 0, pitch);
  hi = std::clamp<int64_t>(hi, lo, pitch);
  std::memset(row, 0, static_cast<size_t>(lo) * sizeof(float));
  std::memset(row + hi, 0, static_cast<size_t>(pitch - hi) * sizeof(float));
}

// The SW phase rows of input row `xr` (W floats, or null for a row outside the image) at
// `dst` (SW rows of `pitch` floats).
void BuildPhaseRows(const F32DirectConvGeometry& g, int64_t pitch, const float* xr, float* dst) {
  if (xr == nullptr) {
    std::memset(dst, 0, static_cast<size_t>(g.SW * pitch) * sizeof(float));
    return;
  }
  // Input column t lands in phase (t + PW) % SW at column (t + PW) / SW.
  if (g.SW == 1) {
    const int64_t n = std::clamp<int64_t>(g.W, 0, pitch - g.PW);
    ZeroOutside(dst, g.PW, g.PW + n, pitch);
    if (n > 0) std::memcpy(dst + g.PW, xr, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  if (g.SW == 2) {
    // Even columns t = 2 i go to phase PW % 2 from column PW / 2, odd ones to the other phase
    // from column (PW + 1) / 2.
    const int64_t e0 = g.PW / 2, o0 = (g.PW + 1) / 2;
    float* re = dst + (g.PW % 2) * pitch;
    float* ro = dst + ((g.PW + 1) % 2) * pitch;
    const int64_t pairs = std::clamp<int64_t>(g.W / 2, 0, pitch - o0);
    const bool last_even = g.W % 2 != 0 && e0 + g.W / 2 < pitch;
    ZeroOutside(re, e0, e0 + pairs + (last_even ? 1 : 0), pitch);
    ZeroOutside(ro, o0, o0 + pairs, pitch);
    Deinterleave(xr, pairs, re + e0, ro + o0);
    if (last_even) re[e0 + g.W / 2] = xr[g.W - 1];
    return;
  }
  std::memset(dst, 0, static_cast<size_t>(g.SW * pitch) * sizeof(float));
  for (int64_t t = 0; t < g.W; ++t) {
    const int64_t j = (t + g.PW) / g.SW;
    if (j < pitch) dst[((t + g.PW) % g.SW) * pitch + j] = xr[t];
  }
}

// The row buffer for output row oh: every (c, kh) tap row's phases.
void BuildRows(const F32DirectConvGeometry& g, int64_t pitch, const float* x, int64_t oh,
               float* rows) {
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      const int64_t ih = oh * g.SH - g.PH + kh * g.DH;
      const float* xr = ih >= 0 && ih < g.H ? x + (c * g.H + ih) * g.W : nullptr;
      BuildPhaseRows(g, pitch, xr, rows + (c * g.KH + kh) * g.SW * pitch);
    }
}

// One tile: output channels [m0, m0 + mr) x columns [ow0, ow0 + 32) of one output row (masks
// for a partial tile). koff[k]: where tap k's columns start in the row buffer.
template <int MR>
void Tile(const float* panel, int64_t K, const int64_t* koff, const float* rows, int64_t ow0,
          const __mmask16 (&mask)[2], const float* bias, int64_t mr, bool clamp, float min,
          float max, float* y, int64_t ystride) {
  __m512 acc[MR][2];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t k = 0; k < K; ++k) {
    const float* r = rows + koff[k] + ow0;
    const __m512 x0 = _mm512_loadu_ps(r), x1 = _mm512_loadu_ps(r + 16);
    const float* a = panel + k * MR;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512 w = _mm512_set1_ps(a[i]);
      acc[i][0] = _mm512_fmadd_ps(w, x0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(w, x1, acc[i][1]);
    }
  }
  const __m512 lo = _mm512_set1_ps(min), hi = _mm512_set1_ps(max);
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (i >= mr) break;
    // The GEMM's init: bias_m + bias_n with no column bias (f32_gemm_ukernel.h).
    const __m512 init =
        _mm512_add_ps(bias != nullptr ? _mm512_set1_ps(bias[i]) : _mm512_setzero_ps(),
                      _mm512_setzero_ps());
    for (int v = 0; v < 2; ++v) {
      __m512 t = _mm512_add_ps(init, acc[i][v]);
      if (clamp) t = _mm512_min_ps(_mm512_max_ps(t, lo), hi);
      _mm512_mask_storeu_ps(y + i * ystride + 16 * v, mask[v], t);
    }
  }
}

using TileFn = void (*)(const float*, int64_t, const int64_t*, const float*, int64_t,
                        const __mmask16 (&)[2], const float*, int64_t, bool, float, float, float*,
                        int64_t);

// A tile for each panel width F32DirectConvApplies admits.
TileFn TileFor(size_t mr) {
  switch (mr) {
    case 1: return Tile<1>;
    case 2: return Tile<2>;
    case 4: return Tile<4>;
    case 6: return Tile<6>;
    case 8: return Tile<8>;
    case 12: return Tile<12>;
    case 14: return Tile<14>;
    default: return nullptr;
  }
}

}  // namespace

void f32_conv_direct_avx512(const F32DirectConvGeometry& g, const F32Panels& w, int64_t M,
                            const float* bias, bool clamp, float min, float max, const float* x,
                            int64_t oh0, int64_t oh1, float* y, float* rowbuf) {
  const ScopedFlushDenormals ftz;  // as the GEMM's blocks
  const int64_t pitch = F32DirectConvRowPitch(g);
  const int64_t K = g.K(), MR = static_cast<int64_t>(w.width), out_sz = g.OH * g.OW;
  const TileFn tile = TileFor(w.width);
  // Tap k = (c, kh, kw) reads phase (kw * DW) % SW of row (c, kh) from column (kw * DW) / SW.
  int64_t koff[kF32DirectConvMaxK];
  for (int64_t c = 0, k = 0; c < g.C; ++c)
    for (int64_t kh = 0; kh < g.KH; ++kh)
      for (int64_t kw = 0; kw < g.KW; ++kw, ++k)
        koff[k] = ((c * g.KH + kh) * g.SW + (kw * g.DW) % g.SW) * pitch + (kw * g.DW) / g.SW;
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    BuildRows(g, pitch, x, oh, rowbuf);
    for (int64_t ow0 = 0; ow0 < g.OW; ow0 += kTileCols) {
      const int64_t n = std::min(kTileCols, g.OW - ow0);
      const __mmask16 mask[2] = {
          n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1u),
          n >= 32 ? __mmask16(0xFFFF) : (n > 16 ? __mmask16((1u << (n - 16)) - 1u) : __mmask16(0))};
      for (int64_t m0 = 0; m0 < M; m0 += MR)
        tile(w.panel(static_cast<size_t>(m0 / MR)), K, koff, rowbuf, ow0, mask,
             bias != nullptr ? bias + m0 : nullptr, std::min(MR, M - m0), clamp, min, max,
             y + m0 * out_sz + oh * g.OW + ow0, out_sz);
    }
  }
}

}  // namespace vt::kernels
