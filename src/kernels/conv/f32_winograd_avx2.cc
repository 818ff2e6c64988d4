// AVX2 transform rows of Winograd F(4x4, 3x3) (contract in f32_winograd.h). This file alone is
// compiled with AVX2 flags (and without fused multiply-adds, like its scalar twin); it is only
// called after run-time CPU detection.
//
// The AVX-512 row's scheme (f32_winograd_avx512.cc) with 8 tiles per vector. Input: the six
// input rows of each channel and tile row are transformed down the columns with whole-row loads
// into a scratch row per transformed row k; then, for 8 tiles, each vector is loaded as two
// halves (tiles q and q + 4: a 128-bit lane holds one tile's columns 4 tw .. 4 tw + 3), and a
// 4x4 transpose inside each lane gives columns j = 0..3 of the 8 tiles in order; columns 4 and 5
// are columns 0 and 1 moved down by one tile. Output: the reverse, the 4x4 results transposed
// back inside each lane and the lanes recombined into rows.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/conv/f32_winograd.h"
#include "kernels/conv/f32_winograd_inl.h"

namespace vt::kernels {
namespace {

inline __m256 Mul(float k, __m256 x) { return _mm256_mul_ps(_mm256_set1_ps(k), x); }

// The first min(n, 8) lanes (for maskload / maskstore).
inline __m256i Lanes(int64_t n) {
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int32_t k = static_cast<int32_t>(std::min<int64_t>(n, 8));
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), iota);
}

// The first min(n, 8) floats at p, zero beyond. Masked moves only for tails: a masked store
// (vmaskmovps) is microcoded on AMD cores, and with it in every store the input transform ran
// 4x slower on Zen 4.
inline __m256 Load(const float* p, int64_t n) {
  return n >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, Lanes(n));
}
inline void Store(float* p, int64_t n, __m256 v) {
  if (n >= 8)
    _mm256_storeu_ps(p, v);
  else
    _mm256_maskstore_ps(p, Lanes(n), v);
}

// r[i] lanes (l, e) -> out[e] lanes (l, i): a 4x4 transpose inside each 128-bit lane l.
inline void TransposeInLanes(const __m256 r[4], __m256 out[4]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  out[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  out[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  out[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  out[3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

// Transformed input rows k = 0..5 of tile row tr, channel xc, into buf (pitch `pitch`), for
// input columns [w0, w1) (scratch columns PW + w); the other columns are left as they are.
void ColumnPass(const F32WinogradGeometry& g, const float* xc, int64_t tr, int64_t w0, int64_t w1,
                float* buf, size_t pitch) {
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t w = w0; w < w1; w += 8) {
    const int64_t n = w1 - w;
    __m256 d[6], t[6];
    for (int i = 0; i < 6; ++i) {
      const int64_t r = 4 * tr + i - g.PH;
      d[i] = r >= 0 && r < g.H ? Load(xc + r * g.W + w, n) : zero;
    }
    WinogradInput6T(d, t, Mul);
    for (int k = 0; k < 6; ++k) Store(buf + k * pitch + g.PW + w, n, t[k]);
  }
}

// Frequencies (k, l) of 8 tiles from scratch row k: cols = the row at the group's first column
// (reads cols[0, 34)).
inline void RowPass(const float* cols, __m256 out[6]) {
  __m256 r[4], d[6];
  for (int q = 0; q < 4; ++q)  // tile q in lane 0, tile q + 4 in lane 1
    r[q] = _mm256_loadu2_m128(cols + 16 + 4 * q, cols + 4 * q);
  TransposeInLanes(r, d);
  const __m256i next = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7);
  d[4] = _mm256_blend_ps(_mm256_permutevar8x32_ps(d[0], next), _mm256_broadcast_ss(cols + 32),
                         0x80);
  d[5] = _mm256_blend_ps(_mm256_permutevar8x32_ps(d[1], next), _mm256_broadcast_ss(cols + 33),
                         0x80);
  WinogradInput6T(d, out, Mul);
}

}  // namespace

void f32_winograd_input_avx2(const F32WinogradGeometry& geo, const float* x, int64_t t0,
                             int64_t count, float* v, size_t ldv, size_t fstride, float* scratch) {
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
      for (int64_t tw = tw0; tw < tw1; tw += 8) {
        float* dst = v + static_cast<size_t>(c) * ldv + static_cast<size_t>(off + tw - tw0);
        for (int k = 0; k < 6; ++k) {
          __m256 out[6];
          RowPass(scratch + k * pitch + 4 * tw, out);
          for (int l = 0; l < 6; ++l)
            Store(dst + static_cast<size_t>(k * 6 + l) * fstride, tw1 - tw, out[l]);
        }
      }
    });
  }
}

namespace {

// Interleaves y[j] (lanes = 8 tiles, vector j = column j of each tile) into 32 floats
// out[4 q + j] = y[j][q] and stores the first `cols` of them at dst.
inline void InterleaveStore(const __m256 y[4], float* dst, int64_t cols) {
  __m256 s[4];
  TransposeInLanes(y, s);  // s[q]: tile q's row in lane 0, tile q + 4's in lane 1
  const __m256 o[4] = {_mm256_permute2f128_ps(s[0], s[1], 0x20),
                       _mm256_permute2f128_ps(s[2], s[3], 0x20),
                       _mm256_permute2f128_ps(s[0], s[1], 0x31),
                       _mm256_permute2f128_ps(s[2], s[3], 0x31)};
  for (int i = 0; i < 4 && cols > 8 * i; ++i) Store(dst + 8 * i, cols - 8 * i, o[i]);
}

// One output row i of 8 tiles from their column-transformed values r[l] (l < 6), with the
// bias and the clamp, stored at dst.
inline void OutputRow(const __m256 r[6], __m256 bias, const F32WinogradEpilogue& ep, __m256 lo,
                      __m256 hi, float* dst, int64_t cols) {
  __m256 out[4];
  WinogradOutput6T(r, out, Mul);
  for (int j = 0; j < 4; ++j) {
    out[j] = out[j] + bias;
    if (ep.clamp) out[j] = _mm256_min_ps(_mm256_max_ps(out[j], lo), hi);
  }
  InterleaveStore(out, dst, cols);
}

}  // namespace

void f32_winograd_output_avx2(const F32WinogradGeometry& geo, int64_t M,
                              const F32WinogradEpilogue& ep, const float* mf, size_t ldm,
                              size_t fstride, int64_t t0, int64_t count, float* y) {
  const int64_t TW = geo.TW(), OH = geo.OH, OW = geo.OW;
  const __m256 lo = _mm256_set1_ps(ep.min), hi = _mm256_set1_ps(ep.max);
  for (int64_t m = 0; m < M; ++m) {
    const __m256 bias = _mm256_set1_ps(ep.bias != nullptr ? ep.bias[m] : 0.0f);
    ForEachTileSegment(TW, t0, count, [&](int64_t tr, int64_t tw0, int64_t tw1, int64_t off) {
      for (int64_t tw = tw0; tw < tw1; tw += 8) {
        const int64_t n = tw1 - tw;
        const float* src = mf + static_cast<size_t>(m) * ldm + static_cast<size_t>(off + tw - tw0);
        __m256 r[4][6];
        for (int l = 0; l < 6; ++l) {  // down each column
          __m256 col[6], out[4];
          for (int k = 0; k < 6; ++k)
            col[k] = Load(src + static_cast<size_t>(k * 6 + l) * fstride, n);
          WinogradOutput6T(col, out, Mul);
          for (int i = 0; i < 4; ++i) r[i][l] = out[i];
        }
        const int64_t cols = std::min({int64_t{32}, 4 * (tw1 - tw), OW - 4 * tw});
        for (int i = 0; i < 4 && 4 * tr + i < OH; ++i)  // then along each row
          OutputRow(r[i], bias, ep, lo, hi, y + (m * OH + 4 * tr + i) * OW + 4 * tw, cols);
      }
    });
  }
}

}  // namespace vt::kernels
