// AVX-512F transform rows of Winograd F(4x4, 3x3) (contract in f32_winograd.h). This file alone
// is compiled with AVX-512 flags (and without fused multiply-adds, like its scalar twin); it is
// only called after run-time CPU detection.
//
// Lanes are 16 consecutive tiles of one tile row. Input: for each channel and tile row, the six
// input rows are transformed down the columns with whole-row vector loads into a zero-padded
// scratch row per transformed row k; then, for 16 tiles, columns 4 tw + j (j < 4) are
// deinterleaved from 64 consecutive scratch floats by two-source permutes, columns 4 tw + 4 and
// + 5 are the same vectors shifted by one tile, and the row transform gives the 6 frequencies
// (k, l) of the 16 tiles, one vector store each. Output: the reverse, 36 vector loads per 16
// tiles and output channel, the 4x4 results interleaved back into rows by permutes.
#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cstring>

#include "kernels/conv/f32_winograd.h"
#include "kernels/conv/f32_winograd_inl.h"

namespace vt::kernels {
namespace {

inline __m512 Mul(float k, __m512 x) { return _mm512_mul_ps(_mm512_set1_ps(k), x); }

inline __mmask16 Lanes(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << static_cast<unsigned>(n)) - 1u);
}

// Phase j of 64 floats: lanes q = v[4 q + j].
struct Deinterleave {
  __m512i idx[4];
  Deinterleave() {
    for (int j = 0; j < 4; ++j) {
      alignas(64) int32_t lanes[16];
      for (int q = 0; q < 8; ++q) lanes[q] = lanes[8 + q] = j + 4 * q;
      idx[j] = _mm512_load_si512(lanes);
    }
  }
  __m512 Phase(int j, __m512 v0, __m512 v1, __m512 v2, __m512 v3) const {
    const __m512 lo = _mm512_permutex2var_ps(v0, idx[j], v1);
    const __m512 hi = _mm512_permutex2var_ps(v2, idx[j], v3);
    return _mm512_mask_blend_ps(0xFF00, lo, hi);
  }
};

// Transformed input rows k = 0..5 of tile row tr, channel xc, into buf (pitch `pitch`), for
// input columns [w0, w1) (scratch columns PW + w); the other columns are left as they are.
void ColumnPass(const F32WinogradGeometry& g, const float* xc, int64_t tr, int64_t w0, int64_t w1,
                float* buf, size_t pitch) {
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t w = w0; w < w1; w += 16) {
    const __mmask16 mk = Lanes(w1 - w);
    __m512 d[6], t[6];
    for (int i = 0; i < 6; ++i) {
      const int64_t r = 4 * tr + i - g.PH;
      d[i] = r >= 0 && r < g.H ? _mm512_maskz_loadu_ps(mk, xc + r * g.W + w) : zero;
    }
    WinogradInput6T(d, t, Mul);
    for (int k = 0; k < 6; ++k) _mm512_mask_storeu_ps(buf + k * pitch + g.PW + w, mk, t[k]);
  }
}

// Frequencies (k, l) of 16 tiles from scratch row k: cols = the row at the group's first column.
inline void RowPass(const Deinterleave& di, const float* cols, __m512 out[6]) {
  const __m512 v0 = _mm512_loadu_ps(cols), v1 = _mm512_loadu_ps(cols + 16),
               v2 = _mm512_loadu_ps(cols + 32), v3 = _mm512_loadu_ps(cols + 48),
               v4 = _mm512_loadu_ps(cols + 64);
  __m512 d[6];
  for (int j = 0; j < 4; ++j) d[j] = di.Phase(j, v0, v1, v2, v3);
  const __m512i i4 = _mm512_castps_si512(v4);
  d[4] = _mm512_castsi512_ps(_mm512_alignr_epi32(i4, _mm512_castps_si512(d[0]), 1));
  d[5] = _mm512_castsi512_ps(
      _mm512_alignr_epi32(_mm512_alignr_epi32(i4, i4, 1), _mm512_castps_si512(d[1]), 1));
  WinogradInput6T(d, out, Mul);
}

}  // namespace

void f32_winograd_input_avx512(const F32WinogradGeometry& geo, const float* x, int64_t t0,
                               int64_t count, float* v, size_t ldv, size_t fstride,
                               float* scratch) {
  static const Deinterleave di;
  const int64_t TW = geo.TW(), C = geo.C;
  const size_t pitch = WinogradRowPitch(TW);
  // Columns outside the image stay zero; a segment's lanes past its last tile may read
  // another segment's columns, and are never stored.
  std::memset(scratch, 0, 6 * pitch * sizeof(float));
  for (int64_t c = 0; c < C; ++c) {
    const float* xc = x + c * geo.H * geo.W;
    ForEachTileSegment(TW, t0, count, [&](int64_t tr, int64_t tw0, int64_t tw1, int64_t off) {
      const int64_t w0 = std::max<int64_t>(0, 4 * tw0 - geo.PW);
      const int64_t w1 = std::min<int64_t>(geo.W, 4 * tw1 + 2 - geo.PW);
      ColumnPass(geo, xc, tr, w0, w1, scratch, pitch);
      for (int64_t tw = tw0; tw < tw1; tw += 16) {
        const __mmask16 mk = Lanes(tw1 - tw);
        float* dst = v + static_cast<size_t>(c) * ldv + static_cast<size_t>(off + tw - tw0);
        for (int k = 0; k < 6; ++k) {
          __m512 out[6];
          RowPass(di, scratch + k * pitch + 4 * tw, out);
          for (int l = 0; l < 6; ++l)
            _mm512_mask_storeu_ps(dst + static_cast<size_t>(k * 6 + l) * fstride, mk, out[l]);
        }
      }
    });
  }
}

namespace {

// Interleaves 4 vectors (lanes = 16 tiles, vector j = column j of each tile) into 64 floats
// out[4 q + j] = y[j][q], and stores the first `cols` of them at dst.
struct Interleave {
  __m512i pair_lo, pair_hi, quad_lo, quad_hi;
  Interleave() {
    alignas(64) int32_t a[16], b[16], c[16], d[16];
    for (int q = 0; q < 8; ++q) {
      a[2 * q] = q, a[2 * q + 1] = 16 + q;          // y0[q], y1[q] for q < 8
      b[2 * q] = 8 + q, b[2 * q + 1] = 24 + q;      // for q >= 8
    }
    for (int q = 0; q < 4; ++q) {
      c[4 * q] = 2 * q, c[4 * q + 1] = 2 * q + 1;   // pairs 0..3 of (y0, y1), then of (y2, y3)
      c[4 * q + 2] = 16 + 2 * q, c[4 * q + 3] = 16 + 2 * q + 1;
      d[4 * q] = 8 + 2 * q, d[4 * q + 1] = 8 + 2 * q + 1;  // pairs 4..7
      d[4 * q + 2] = 24 + 2 * q, d[4 * q + 3] = 24 + 2 * q + 1;
    }
    pair_lo = _mm512_load_si512(a);
    pair_hi = _mm512_load_si512(b);
    quad_lo = _mm512_load_si512(c);
    quad_hi = _mm512_load_si512(d);
  }
  void Store(const __m512 y[4], float* dst, int64_t cols) const {
    const __m512 e0 = _mm512_permutex2var_ps(y[0], pair_lo, y[1]);
    const __m512 e1 = _mm512_permutex2var_ps(y[0], pair_hi, y[1]);
    const __m512 f0 = _mm512_permutex2var_ps(y[2], pair_lo, y[3]);
    const __m512 f1 = _mm512_permutex2var_ps(y[2], pair_hi, y[3]);
    const __m512 o[4] = {_mm512_permutex2var_ps(e0, quad_lo, f0),
                         _mm512_permutex2var_ps(e0, quad_hi, f0),
                         _mm512_permutex2var_ps(e1, quad_lo, f1),
                         _mm512_permutex2var_ps(e1, quad_hi, f1)};
    for (int i = 0; i < 4 && cols > 16 * i; ++i)
      _mm512_mask_storeu_ps(dst + 16 * i, Lanes(cols - 16 * i), o[i]);
  }
};

}  // namespace

void f32_winograd_output_avx512(const F32WinogradGeometry& geo, int64_t M,
                                const F32WinogradEpilogue& ep, const float* mf, size_t ldm,
                                size_t fstride, int64_t t0, int64_t count, float* y) {
  static const Interleave il;
  const int64_t TW = geo.TW(), OH = geo.OH, OW = geo.OW;
  const __m512 lo = _mm512_set1_ps(ep.min), hi = _mm512_set1_ps(ep.max);
  for (int64_t m = 0; m < M; ++m) {
    const __m512 bias = _mm512_set1_ps(ep.bias != nullptr ? ep.bias[m] : 0.0f);
    ForEachTileSegment(TW, t0, count, [&](int64_t tr, int64_t tw0, int64_t tw1, int64_t off) {
      for (int64_t tw = tw0; tw < tw1; tw += 16) {
        const __mmask16 mk = Lanes(tw1 - tw);
        const float* src = mf + static_cast<size_t>(m) * ldm + static_cast<size_t>(off + tw - tw0);
        __m512 r[4][6];
        for (int l = 0; l < 6; ++l) {  // down each column
          __m512 col[6], out[4];
          for (int k = 0; k < 6; ++k)
            col[k] = _mm512_maskz_loadu_ps(mk, src + static_cast<size_t>(k * 6 + l) * fstride);
          WinogradOutput6T(col, out, Mul);
          for (int i = 0; i < 4; ++i) r[i][l] = out[i];
        }
        const int64_t cols = std::min({int64_t{64}, 4 * (tw1 - tw), OW - 4 * tw});
        for (int i = 0; i < 4; ++i) {  // then along each row
          const int64_t oh = 4 * tr + i;
          if (oh >= OH) break;
          __m512 out[4];
          WinogradOutput6T(r[i], out, Mul);
          for (int j = 0; j < 4; ++j) {
            out[j] = out[j] + bias;
            if (ep.clamp) out[j] = _mm512_min_ps(_mm512_max_ps(out[j], lo), hi);
          }
          il.Store(out, y + (m * OH + oh) * OW + 4 * tw, cols);
        }
      }
    });
  }
}

}  // namespace vt::kernels
