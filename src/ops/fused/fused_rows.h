// Helpers of the fused transformer operators (graph/fused_ops.h): f32 tensors seen as rows of
// their last axis, and row ranges split over threads.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "vtensor/tensor/tensor.h"

namespace vt::ops {

// An f32 tensor as `rows` rows of its last dim `n`, row r at data + r * stride (element stride
// 1 within a row). A copy is kept in `keep` when the tensor's layout is not such a row set.
struct F32Rows {
  const float* data = nullptr;
  int64_t rows = 0, n = 0;
  ptrdiff_t stride = 0;
  Tensor keep;
};
// Precondition: t is f32 with rank >= 1.
F32Rows AsF32Rows(const Tensor& t);

// Calls f(r0, r1) on consecutive row ranges covering [0, rows), in parallel over `threads`
// when the work (rows * cost_per_row, in element operations) is large enough to pay for it.
template <typename F>
void ForRowRanges(int64_t rows, int64_t cost_per_row, int threads, F&& f) {
  const int64_t work = rows * cost_per_row;
  int t = threads;
  if (t > 1 && work < (int64_t{1} << 16)) t = 1;
  t = static_cast<int>(std::min<int64_t>(t, rows));
  if (t <= 1) {
    if (rows > 0) f(int64_t{0}, rows);
    return;
  }
#pragma omp parallel for num_threads(t) schedule(static)
  for (int i = 0; i < t; ++i) {
    const int64_t r0 = rows * i / t, r1 = rows * (i + 1) / t;
    if (r0 < r1) f(r0, r1);
  }
}

}  // namespace vt::ops
