// Executes per-axis resize plans (resize_plan.h) on dense row-major data.
//
//  * ResizeNearest: a direct N-D gather, one output row at a time; a row whose source row
//    equals the previous row's is a memcpy of that output row. Works for any element type.
//  * ResizeFiltered (linear / cubic): when only the last two dims are resized (NCHW images),
//    each plane is produced row by row from horizontally resampled source rows kept in a
//    small cache, so no full-size intermediate is written. Otherwise it falls back to one
//    separable 1-D pass per resized axis, most-shrinking axis first.
// Planes / rows are split across `threads` OpenMP threads when there is enough work.
//
// Both take an optional `addend` of the output's shape (the fused Add of FuseResizeAdd,
// passes/fusion.h): each output row is then written as resized row + addend row while the
// resized row is in cache (the separable fallback adds after its last pass), in the rounding
// of a separate Add: one addition per element. The addend may be the output's own buffer:
// every element of it is read before the same output element is written. Nearest mode then
// keeps the gathered row aside for the next output row with the same source row.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
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

// dst[i] = row[i] + add[i] for one row of n elements. dst may be add (each element is read
// before it is written), which is why the loop needs `omp simd` to be vectorised at -O2.
template <typename V>
inline void AddRow(const V* row, const V* add, V* dst, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dst[i] = row[i] + add[i];
}

// Source row `r` of a plane resampled along W, from a cache of ph.taps rows (slot r mod taps
// never collides for the distinct rows one output row needs: they are consecutive).
template <typename V>
struct RowCache {
  const V* src;
  const ResizeAxisPlan& pw;
  V extrapolation;
  std::vector<V>& cache;
  std::vector<int64_t>& cached;

  const V* Row(int64_t r) {
    const size_t slots = cached.size();
    const size_t slot = static_cast<size_t>(r) % slots;
    V* buf = cache.data() + slot * static_cast<size_t>(pw.out);
    if (cached[slot] != r) {
      if (pw.identity) std::memcpy(buf, src + r * pw.in, static_cast<size_t>(pw.out) * sizeof(V));
      else ResampleRow<V>(src + r * pw.in, buf, pw, extrapolation);
      cached[slot] = r;
    }
    return buf;
  }
};

// Output row y of a plane (not extrapolated, ph not the identity) into `d`; with `add`, d =
// resized + add, and `scratch` (w_out elements) holds the resized row where it needs more than
// one pass.
template <typename V>
void FilterRow(RowCache<V>& rows, const ResizeAxisPlan& ph, int64_t y, V* d, const V* add,
               V* scratch) {
  const int64_t w_out = rows.pw.out, slots = ph.taps;
  const int64_t* idx = &ph.idx[static_cast<size_t>(y * slots)];
  const float* w = &ph.w[static_cast<size_t>(y * slots)];
  const V* r0 = rows.Row(idx[0]);
  const V w0 = static_cast<V>(w[0]);
  if (slots == 2) {  // linear: one fused pass over the row
    const V* r1 = rows.Row(idx[1]);
    const V w1 = static_cast<V>(w[1]);
    if (add == nullptr) {
      for (int64_t i = 0; i < w_out; ++i) d[i] = w0 * r0[i] + w1 * r1[i];
      return;
    }
#pragma omp simd
    for (int64_t i = 0; i < w_out; ++i) {
      const V v = w0 * r0[i] + w1 * r1[i];
      d[i] = v + add[i];
    }
    return;
  }
  V* acc = add == nullptr ? d : scratch;
  for (int64_t i = 0; i < w_out; ++i) acc[i] = w0 * r0[i];
  for (int64_t t = 1; t < slots; ++t) {
    const V wt = static_cast<V>(w[t]);
    if (wt == 0) continue;
    const V* rt = rows.Row(idx[t]);
    for (int64_t i = 0; i < w_out; ++i) acc[i] += wt * rt[i];
  }
  if (add != nullptr) AddRow(acc, add, d, w_out);
}

// Linear/cubic for one [H, W] plane where only the last two axes are resized; `add` (or null)
// is the addend plane.
template <typename V>
void FilterPlane(const V* src, V* dst, const ResizeAxisPlan& ph, const ResizeAxisPlan& pw,
                 V extrapolation, std::vector<V>& cache, std::vector<int64_t>& cached,
                 const V* add, std::vector<V>& scratch) {
  const int64_t w_in = pw.in, w_out = pw.out;
  cache.resize(static_cast<size_t>(ph.taps * w_out));
  cached.assign(static_cast<size_t>(ph.taps), -1);
  if (add != nullptr) scratch.resize(static_cast<size_t>(w_out));
  RowCache<V> rows{src, pw, extrapolation, cache, cached};
  for (int64_t y = 0; y < ph.out; ++y) {
    V* d = dst + y * w_out;
    const V* a = add != nullptr ? add + y * w_out : nullptr;
    V* out_row = a != nullptr ? scratch.data() : d;  // where a one-pass row is written first
    if (ph.any_extrapolate && ph.extrapolate[static_cast<size_t>(y)]) {
      std::fill(out_row, out_row + w_out, extrapolation);
    } else if (ph.identity) {
      if (pw.identity) std::memcpy(out_row, src + y * w_in, static_cast<size_t>(w_out) * sizeof(V));
      else ResampleRow<V>(src + y * w_in, out_row, pw, extrapolation);
    } else {
      FilterRow<V>(rows, ph, y, d, a, scratch.data());
      continue;
    }
    if (a != nullptr) AddRow(out_row, a, d, w_out);
  }
}

// Linear/cubic in any layout: one separable pass per resized axis (PassOrder); with an addend
// the last pass writes a temporary that is then added into `out` (which may be the addend).
template <typename V>
void ResizeSeparable(const V* x, const Shape& in_shape, const std::vector<ResizeAxisPlan>& plans,
                     V extrapolation, V* out, int threads, const V* addend) {
  const std::vector<int> order = PassOrder(plans);
  Shape shape = in_shape;
  std::vector<V> a, b;
  const V* src = x;
  for (size_t k = 0; k < order.size(); ++k) {
    const int d = order[k];
    const ResizeAxisPlan& plan = plans[static_cast<size_t>(d)];
    const int64_t outer = Product(shape, 0, static_cast<size_t>(d));
    const int64_t inner = Product(shape, static_cast<size_t>(d) + 1, shape.size());
    shape[static_cast<size_t>(d)] = plan.out;
    V* dst = out;
    if (k + 1 < order.size() || addend != nullptr) {
      std::vector<V>& buf = (k % 2 == 0) ? a : b;
      buf.resize(static_cast<size_t>(Product(shape, 0, shape.size())));
      dst = buf.data();
    }
    ResamplePass<V>(src, dst, outer, inner, plan, extrapolation, threads);
    src = dst;
  }
  const int64_t n = Product(shape, 0, shape.size());
  if (addend != nullptr) AddRow(src, addend, out, n);
  else if (order.empty()) std::copy_n(x, n, out);
}

// Row gathering of ResizeNearest: the flat source offset of an output row, and one row.
template <typename T>
struct NearestRows {
  const std::vector<ResizeAxisPlan>& plans;
  std::vector<int64_t> istr;  // input strides
  T extrapolation;

  // Offset in x of the source row of the output row at `pos` (its leading coordinates);
  // false when any of them is extrapolated.
  bool Source(const std::vector<int64_t>& pos, int64_t* src) const {
    *src = 0;
    for (size_t k = 0; k + 1 < plans.size(); ++k) {
      const ResizeAxisPlan& p = plans[k];
      const size_t j = static_cast<size_t>(pos[k]);
      if (p.any_extrapolate && p.extrapolate[j]) return false;
      *src += p.idx[j] * istr[k];
    }
    return true;
  }
  void Gather(const T* s, T* d) const {
    const ResizeAxisPlan& pw = plans.back();
    if (pw.identity) {
      std::copy_n(s, pw.out, d);
      return;
    }
    const int64_t* idx = pw.idx.data();
    if (!pw.any_extrapolate) {
      for (int64_t j = 0; j < pw.out; ++j) d[j] = s[idx[j]];
      return;
    }
    for (int64_t j = 0; j < pw.out; ++j)
      d[j] = pw.extrapolate[static_cast<size_t>(j)] ? extrapolation : s[idx[j]];
  }
};

// Output rows [begin, end) of ResizeNearest; `pos` holds the leading coordinates of `begin`.
// A row with the previous row's source is a copy of that output row, or with an addend, the
// same gathered row (kept in `row`) plus its own addend row.
template <typename T>
void NearestRowRange(const NearestRows<T>& g, const T* x, const Shape& out_shape, int64_t begin,
                     int64_t end, std::vector<int64_t> pos, const T* addend, T* out) {
  const int64_t w_out = out_shape.back();
  const int lead = static_cast<int>(out_shape.size()) - 1;
  std::vector<T> row(addend != nullptr ? static_cast<size_t>(w_out) : 0);
  int64_t prev_src = -1;
  for (int64_t r = begin; r < end; ++r) {
    T* d = out + r * w_out;
    T* gathered = addend != nullptr ? row.data() : d;
    int64_t src = 0;
    if (!g.Source(pos, &src)) {
      std::fill(gathered, gathered + w_out, g.extrapolation);
      prev_src = -1;
    } else if (src != prev_src) {
      g.Gather(x + src, gathered);
      prev_src = src;
    } else if (addend == nullptr) {
      std::copy_n(d - w_out, w_out, d);
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (addend != nullptr) AddRow(row.data(), addend + r * w_out, d, w_out);
    }
    for (int k = lead - 1; k >= 0; --k) {
      if (++pos[static_cast<size_t>(k)] < out_shape[static_cast<size_t>(k)]) break;
      pos[static_cast<size_t>(k)] = 0;
    }
  }
}

}  // namespace resize_detail

// `x` has shape `in_shape` (dense); `out` has the plans' output shape (dense). `addend`: null,
// or (floating T only) a dense tensor of the output's shape added to it, possibly `out` itself.
template <typename T>
void ResizeNearest(const T* x, const Shape& in_shape, const std::vector<ResizeAxisPlan>& plans,
                   const T& extrapolation, T* out, int threads, const T* addend = nullptr) {
  using namespace resize_detail;
  const int r = static_cast<int>(in_shape.size());
  if (r == 0) {
    if constexpr (std::is_floating_point_v<T>) {
      out[0] = addend != nullptr ? x[0] + addend[0] : x[0];
    } else {
      out[0] = x[0];
    }
    return;
  }
  Shape out_shape(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) out_shape[static_cast<size_t>(d)] = plans[static_cast<size_t>(d)].out;
  const NearestRows<T> rows{plans, RowMajorStrides(in_shape), extrapolation};
  const int64_t w_out = out_shape.back();
  const int64_t n_rows = Product(out_shape, 0, static_cast<size_t>(r - 1));
  if (w_out == 0 || n_rows == 0) return;
  // Rows are split into contiguous chunks; each chunk tracks its own "previous row".
  const int nt = n_rows * w_out >= kParallelWork ? threads : 1;
#pragma omp parallel num_threads(nt)
  {
    const int tid = omp_get_thread_num(), tn = omp_get_num_threads();
    const int64_t begin = n_rows * tid / tn, end = n_rows * (tid + 1) / tn;
    std::vector<int64_t> pos(static_cast<size_t>(r), 0);
    int64_t rem = begin;
    for (int d = r - 2; d >= 0; --d) {
      pos[static_cast<size_t>(d)] = rem % out_shape[static_cast<size_t>(d)];
      rem /= out_shape[static_cast<size_t>(d)];
    }
    NearestRowRange<T>(rows, x, out_shape, begin, end, std::move(pos), addend, out);
  }
}

// `addend`: null, or a dense tensor of the output's shape added to it, possibly `out` itself.
template <typename V>
void ResizeFiltered(const V* x, const Shape& in_shape, const std::vector<ResizeAxisPlan>& plans,
                    V extrapolation, V* out, int threads, const V* addend = nullptr) {
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
      std::vector<V> cache, scratch;
      std::vector<int64_t> cached;
#pragma omp for schedule(static)
      for (int64_t p = 0; p < planes; ++p)
        FilterPlane<V>(x + p * in_plane, out + p * out_plane, ph, pw, extrapolation, cache, cached,
                       addend != nullptr ? addend + p * out_plane : nullptr, scratch);
    }
    return;
  }
  ResizeSeparable<V>(x, in_shape, plans, extrapolation, out, threads, addend);
}

}  // namespace vt::ops
