// Executes per-axis resize plans (resize_plan.h) on dense row-major data.
//
//  * ResizeNearest: a direct N-D gather, one output row at a time; a row whose source row
//    equals the previous row's is a memcpy of that output row. Works for any element type.
//  * ResizeFiltered (linear / cubic): when only the last two dims are resized (NCHW images),
//    each plane is produced row by row from horizontally resampled source rows kept in a
//    small cache, so no full-size intermediate is written. Otherwise it falls back to one
//    separable 1-D pass per resized axis, most-shrinking axis first.
// Planes / rows are split across `threads` OpenMP threads when there is enough work.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/nn/resize_plan.h"
#include "vtensor/layout/layout.h"

namespace vt::ops {

namespace resize_detail {

// Work (elements x taps) below which a pass stays on one thread.
constexpr int64_t kParallelWork = int64_t{1} << 16;

inline int64_t Product(const Shape& s, size_t b, size_t e) {
  int64_t n = 1;
  for (size_t i = b; i < e; ++i) n *= s[i];
  return n;
}

// Resamples one row of `in` elements into `out` elements along the last axis.
template <typename V>
inline void ResampleRow(const V* src, V* dst, const ResizeAxisPlan& p, V extrapolation) {
  const int64_t taps = p.taps;
  if (taps == 2 && !p.any_extrapolate) {  // linear: the hot case
    const int64_t* idx = p.idx.data();
    const float* w = p.w.data();
    for (int64_t j = 0; j < p.out; ++j)
      dst[j] = static_cast<V>(w[2 * j]) * src[idx[2 * j]] + static_cast<V>(w[2 * j + 1]) * src[idx[2 * j + 1]];
    return;
  }
  for (int64_t j = 0; j < p.out; ++j) {
    if (p.any_extrapolate && p.extrapolate[static_cast<size_t>(j)]) {
      dst[j] = extrapolation;
      continue;
    }
    const int64_t* idx = &p.idx[static_cast<size_t>(j * taps)];
    const float* w = &p.w[static_cast<size_t>(j * taps)];
    V acc = 0;
    for (int64_t t = 0; t < taps; ++t) acc += static_cast<V>(w[t]) * src[idx[t]];
    dst[j] = acc;
  }
}

// One separable pass: src [outer, in, inner] -> dst [outer, out, inner].
template <typename V>
void ResamplePass(const V* src, V* dst, int64_t outer, int64_t inner, const ResizeAxisPlan& plan,
                  V extrapolation, int threads) {
  const int64_t in = plan.in, out = plan.out, taps = plan.taps;
  const int nt = outer * out * inner * taps >= kParallelWork ? threads : 1;
  if (inner == 1) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t o = 0; o < outer; ++o) ResampleRow<V>(src + o * in, dst + o * out, plan, extrapolation);
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static) collapse(2)
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < out; ++j) {
      V* d = dst + (o * out + j) * inner;
      if (plan.any_extrapolate && plan.extrapolate[static_cast<size_t>(j)]) {
        std::fill(d, d + inner, extrapolation);
        continue;
      }
      const int64_t* idx = &plan.idx[static_cast<size_t>(j * taps)];
      const float* w = &plan.w[static_cast<size_t>(j * taps)];
      const V* s0 = src + (o * in + idx[0]) * inner;
      const V w0 = static_cast<V>(w[0]);
      for (int64_t i = 0; i < inner; ++i) d[i] = w0 * s0[i];
      for (int64_t t = 1; t < taps; ++t) {
        const V wt = static_cast<V>(w[t]);
        if (wt == 0) continue;
        const V* st = src + (o * in + idx[t]) * inner;
        for (int64_t i = 0; i < inner; ++i) d[i] += wt * st[i];
      }
    }
  }
}

// Resized axes, most-shrinking first (ties: innermost first).
inline std::vector<int> PassOrder(const std::vector<ResizeAxisPlan>& plans) {
  std::vector<int> order;
  for (int d = static_cast<int>(plans.size()) - 1; d >= 0; --d)
    if (!plans[static_cast<size_t>(d)].identity) order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto& pa = plans[static_cast<size_t>(a)];
    const auto& pb = plans[static_cast<size_t>(b)];
    return static_cast<double>(pa.out) / static_cast<double>(std::max<int64_t>(pa.in, 1)) <
           static_cast<double>(pb.out) / static_cast<double>(std::max<int64_t>(pb.in, 1));
  });
  return order;
}

// Linear/cubic for one [H, W] plane where only the last two axes are resized.
template <typename V>
void FilterPlane(const V* src, V* dst, const ResizeAxisPlan& ph, const ResizeAxisPlan& pw,
                 V extrapolation, std::vector<V>& cache, std::vector<int64_t>& cached) {
  const int64_t w_in = pw.in, w_out = pw.out;
  const int64_t slots = ph.taps;
  cache.resize(static_cast<size_t>(slots * w_out));
  cached.assign(static_cast<size_t>(slots), -1);
  // Source row `r` resampled along W, from the cache (slot r mod taps never collides for
  // the distinct rows one output row needs: they are consecutive).
  auto hrow = [&](int64_t r) -> const V* {
    const size_t slot = static_cast<size_t>(r % slots);
    V* buf = cache.data() + slot * static_cast<size_t>(w_out);
    if (cached[slot] != r) {
      if (pw.identity) std::memcpy(buf, src + r * w_in, static_cast<size_t>(w_out) * sizeof(V));
      else ResampleRow<V>(src + r * w_in, buf, pw, extrapolation);
      cached[slot] = r;
    }
    return buf;
  };
  for (int64_t y = 0; y < ph.out; ++y) {
    V* d = dst + y * w_out;
    if (ph.any_extrapolate && ph.extrapolate[static_cast<size_t>(y)]) {
      std::fill(d, d + w_out, extrapolation);
      continue;
    }
    if (ph.identity) {
      if (pw.identity) std::memcpy(d, src + y * w_in, static_cast<size_t>(w_out) * sizeof(V));
      else ResampleRow<V>(src + y * w_in, d, pw, extrapolation);
      continue;
    }
    const int64_t* idx = &ph.idx[static_cast<size_t>(y * slots)];
    const float* w = &ph.w[static_cast<size_t>(y * slots)];
    const V* r0 = hrow(idx[0]);
    const V w0 = static_cast<V>(w[0]);
    if (slots == 2) {  // linear: one fused pass over the row
      const V* r1 = hrow(idx[1]);
      const V w1 = static_cast<V>(w[1]);
      for (int64_t i = 0; i < w_out; ++i) d[i] = w0 * r0[i] + w1 * r1[i];
      continue;
    }
    for (int64_t i = 0; i < w_out; ++i) d[i] = w0 * r0[i];
    for (int64_t t = 1; t < slots; ++t) {
      const V wt = static_cast<V>(w[t]);
      if (wt == 0) continue;
      const V* rt = hrow(idx[t]);
      for (int64_t i = 0; i < w_out; ++i) d[i] += wt * rt[i];
    }
  }
}

}  // namespace resize_detail

// `x` has shape `in_shape` (dense); `out` has the plans' output shape (dense).
template <typename T>
void ResizeNearest(const T* x, const Shape& in_shape, const std::vector<ResizeAxisPlan>& plans,
                   const T& extrapolation, T* out, int threads) {
  using namespace resize_detail;
  const int r = static_cast<int>(in_shape.size());
  if (r == 0) {
    out[0] = x[0];
    return;
  }
  Shape out_shape(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) out_shape[static_cast<size_t>(d)] = plans[static_cast<size_t>(d)].out;
  const std::vector<int64_t> istr = RowMajorStrides(in_shape);
  const ResizeAxisPlan& pw = plans[static_cast<size_t>(r - 1)];
  const int64_t w_out = pw.out;
  const int64_t rows = Product(out_shape, 0, static_cast<size_t>(r - 1));
  if (w_out == 0 || rows == 0) return;
  // Rows are split into contiguous chunks; each chunk tracks its own "previous row".
  const int nt = rows * w_out >= kParallelWork ? threads : 1;
#pragma omp parallel num_threads(nt)
  {
    const int tid = omp_get_thread_num(), tn = omp_get_num_threads();
    const int64_t begin = rows * tid / tn, end = rows * (tid + 1) / tn;
    std::vector<int64_t> pos(static_cast<size_t>(r), 0);
    int64_t rem = begin;
    for (int d = r - 2; d >= 0; --d) {
      pos[static_cast<size_t>(d)] = rem % out_shape[static_cast<size_t>(d)];
      rem /= out_shape[static_cast<size_t>(d)];
    }
    int64_t prev_src = -1;
    for (int64_t row = begin; row < end; ++row) {
      T* d = out + row * w_out;
      int64_t src = 0;
      bool extrap = false;
      for (int k = 0; k < r - 1; ++k) {
        const ResizeAxisPlan& p = plans[static_cast<size_t>(k)];
        const size_t j = static_cast<size_t>(pos[static_cast<size_t>(k)]);
        if (p.any_extrapolate && p.extrapolate[j]) extrap = true;
        src += p.idx[j] * istr[static_cast<size_t>(k)];
      }
      if (extrap) {
        std::fill(d, d + w_out, extrapolation);
        prev_src = -1;
      } else if (src == prev_src) {
        std::copy_n(d - w_out, w_out, d);
      } else {
        const T* s = x + src;
        if (pw.identity) {
          std::copy_n(s, w_out, d);
        } else {
          for (int64_t j = 0; j < w_out; ++j)
            d[j] = pw.any_extrapolate && pw.extrapolate[static_cast<size_t>(j)]
                       ? extrapolation
                       : s[pw.idx[static_cast<size_t>(j)]];
        }
        prev_src = src;
      }
      for (int k = r - 2; k >= 0; --k) {
        if (++pos[static_cast<size_t>(k)] < out_shape[static_cast<size_t>(k)]) break;
        pos[static_cast<size_t>(k)] = 0;
      }
    }
  }
}

template <typename V>
void ResizeFiltered(const V* x, const Shape& in_shape, const std::vector<ResizeAxisPlan>& plans,
                    V extrapolation, V* out, int threads) {
  using namespace resize_detail;
  const int r = static_cast<int>(in_shape.size());
  bool plane_only = r >= 2;
  for (int d = 0; d + 2 < r; ++d) plane_only &= plans[static_cast<size_t>(d)].identity;
  if (plane_only) {
    const ResizeAxisPlan& ph = plans[static_cast<size_t>(r - 2)];
    const ResizeAxisPlan& pw = plans[static_cast<size_t>(r - 1)];
    const int64_t planes = Product(in_shape, 0, static_cast<size_t>(r - 2));
    const int64_t in_plane = ph.in * pw.in, out_plane = ph.out * pw.out;
    const int nt = planes > 1 && planes * out_plane * (ph.taps + pw.taps) >= kParallelWork ? threads : 1;
#pragma omp parallel num_threads(nt)
    {
      std::vector<V> cache;
      std::vector<int64_t> cached;
#pragma omp for schedule(static)
      for (int64_t p = 0; p < planes; ++p)
        FilterPlane<V>(x + p * in_plane, out + p * out_plane, ph, pw, extrapolation, cache, cached);
    }
    return;
  }
  const std::vector<int> order = PassOrder(plans);
  Shape shape = in_shape;
  std::vector<V> a, b;
  const V* src = x;
  if (order.empty()) {
    std::copy_n(x, Product(in_shape, 0, in_shape.size()), out);
    return;
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const int d = order[k];
    const ResizeAxisPlan& plan = plans[static_cast<size_t>(d)];
    const int64_t outer = Product(shape, 0, static_cast<size_t>(d));
    const int64_t inner = Product(shape, static_cast<size_t>(d) + 1, shape.size());
    shape[static_cast<size_t>(d)] = plan.out;
    V* dst;
    if (k + 1 == order.size()) {
      dst = out;
    } else {
      std::vector<V>& buf = (k % 2 == 0) ? a : b;
      buf.resize(static_cast<size_t>(Product(shape, 0, shape.size())));
      dst = buf.data();
    }
    ResamplePass<V>(src, dst, outer, inner, plan, extrapolation, threads);
    src = dst;
  }
}

}  // namespace vt::ops
