// The bounds loop of im2col and col2im, written once: one kernel tap of an N-d convolution
// walked over a grid of positions. Grid position g lands at g * stride - pad + tap * dilation
// on each axis of the target extent: for im2col (Conv, ConvInteger, QLinearConv) the grid is
// the output and the target the input; for col2im (ConvTranspose) the grid is the input and
// the target the output. Positions that land outside the target are padding.
#pragma once

#include <cstdint>

namespace vt::kernels {

inline constexpr int kMaxConvRank = 8;  // spatial axes

struct ConvTapWalk {
  int rank = 0;                       // spatial axes, 1..kMaxConvRank
  const int64_t* grid = nullptr;      // extent walked, row-major
  const int64_t* target = nullptr;    // extent landed in
  const int64_t* stride = nullptr;    // per axis, > 0
  const int64_t* dilation = nullptr;  // per axis, > 0
  const int64_t* pad = nullptr;       // leading pad per axis
};

// One axis at a time: [*lo, *hi) = the grid positions i in [0, n) whose landing position
// base + i * step lies in [0, limit) (base = tap * dilation - pad, step = stride > 0). An empty
// range has *lo == *hi.
inline void ConvValidRange(int64_t base, int64_t step, int64_t limit, int64_t n, int64_t* lo,
                           int64_t* hi) {
  int64_t a = base >= 0 ? 0 : (-base + step - 1) / step;
  int64_t b = base >= limit ? 0 : (limit - base + step - 1) / step;
  a = a < n ? a : n;
  b = b < n ? b : n;
  *lo = a;
  *hi = b > a ? b : a;
}

// idx[0..rank) = the row-major multi-index of `flat` in `extent`.
inline void UnflattenConvIndex(int64_t flat, const int64_t* extent, int rank, int64_t* idx) {
  for (int i = rank - 1; i >= 0; --i) {
    idx[i] = flat % extent[i];
    flat /= extent[i];
  }
}

// Calls f(q, offset) for the grid positions first + q, q in [0, count), in row-major order:
// `offset` is the row-major offset of the landing position in `target`, or -1 when it lands
// in padding. `tap` is the tap's index per axis.
template <typename F>
inline void ForEachTapPosition(const ConvTapWalk& w, const int64_t* tap, int64_t first,
                               int64_t count, F&& f) {
  const int rank = w.rank;
  int64_t g[kMaxConvRank], base[kMaxConvRank];
  UnflattenConvIndex(first, w.grid, rank, g);
  for (int i = 0; i < rank; ++i) base[i] = tap[i] * w.dilation[i] - w.pad[i];
  for (int64_t q = 0; q < count; ++q) {
    int64_t off = 0;
    for (int i = 0; i < rank; ++i) {
      const int64_t pos = g[i] * w.stride[i] + base[i];
      if (pos < 0 || pos >= w.target[i]) {
        off = -1;
        break;
      }
      off = off * w.target[i] + pos;
    }
    f(q, off);
    for (int i = rank - 1; i >= 0; --i) {
      if (++g[i] < w.grid[i]) break;
      g[i] = 0;
    }
  }
}

}  // namespace vt::kernels
