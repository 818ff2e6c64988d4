// Shared helpers for operator kernels: broadcasting, axis handling, conversions (dtype
// dispatch: ops/common/dtype_dispatch.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/common/dtype_dispatch.h"
#include "vtensor/exec/kernel.h"

namespace vt::ops {

// Numpy multidirectional broadcast of two shapes. Errors: InvalidArgument on mismatch.
Expected<Shape> BroadcastShapes(const Shape& a, const Shape& b);
// Broadcast of many shapes.
Expected<Shape> BroadcastShapes(const std::vector<Shape>& shapes);

// Normalises a possibly negative axis for `rank`. Errors: OutOfRange.
Expected<int64_t> NormalizeAxis(int64_t axis, int64_t rank);

// Reads an int64/int32 tensor into a vector (any layout).
std::vector<int64_t> ToInt64Vector(const Tensor& t);

// Converts any numeric tensor to a contiguous tensor of dtype `to` (ops/cast.h rules; the
// input itself when it already is contiguous `to`). For string sources use ops::CastTo,
// which reports parse errors.
Tensor ToFloat32(const Tensor& t);
Tensor CastTensor(const Tensor& t, DType to);

// Iterates a broadcast binary op: for each output flat index calls f(out_idx, a_idx, b_idx)
// in row-major order. a_strides/b_strides are element strides broadcast to out_shape.
template <typename F>
void ForEachBroadcast2(const Shape& out, const std::vector<int64_t>& as,
                       const std::vector<int64_t>& bs, F&& f) {
  const int r = static_cast<int>(out.size());
  const int64_t n = NumElements(out);
  if (n == 0) return;
  if (r == 0) {
    f(0, 0, 0);
    return;
  }
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  const int64_t inner = out[static_cast<size_t>(r - 1)];
  const int64_t ai = as[static_cast<size_t>(r - 1)], bi = bs[static_cast<size_t>(r - 1)];
  int64_t o = 0;
  while (o < n) {
    int64_t ao = 0, bo = 0;
    for (int d = 0; d < r - 1; ++d) {
      ao += idx[static_cast<size_t>(d)] * as[static_cast<size_t>(d)];
      bo += idx[static_cast<size_t>(d)] * bs[static_cast<size_t>(d)];
    }
    for (int64_t i = 0; i < inner; ++i) f(o + i, ao + i * ai, bo + i * bi);
    o += inner;
    for (int d = r - 2; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < out[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
}

// Strides of `t` (contiguous assumed) broadcast to `out` (0 for broadcast dims).
std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out);

}  // namespace vt::ops
