// Shared helpers for operator kernels: dtype dispatch, broadcasting, axis handling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtensor/exec/kernel.h"

namespace vt::ops {

// Calls f(T{}) with the C++ type of `t` for the listed dtype families. Returns
// Unimplemented for others.
#define VT_DISPATCH_CASE(DT, T) \
  case DT: return f(T{});

template <typename F>
Status DispatchFloat(DType t, F&& f) {
  switch (t) {
    VT_DISPATCH_CASE(DType::kFloat32, float)
    VT_DISPATCH_CASE(DType::kFloat64, double)
    default: return Unimplemented(std::string("dtype ") + DTypeName(t) + " not supported");
  }
}

template <typename F>
Status DispatchInt(DType t, F&& f) {
  switch (t) {
    VT_DISPATCH_CASE(DType::kInt8, int8_t)
    VT_DISPATCH_CASE(DType::kUInt8, uint8_t)
    VT_DISPATCH_CASE(DType::kInt16, int16_t)
    VT_DISPATCH_CASE(DType::kUInt16, uint16_t)
    VT_DISPATCH_CASE(DType::kInt32, int32_t)
    VT_DISPATCH_CASE(DType::kUInt32, uint32_t)
    VT_DISPATCH_CASE(DType::kInt64, int64_t)
    VT_DISPATCH_CASE(DType::kUInt64, uint64_t)
    default: return Unimplemented(std::string("dtype ") + DTypeName(t) + " not supported");
  }
}

// float32/float64 and all integer types.
template <typename F>
Status DispatchNumeric(DType t, F&& f) {
  switch (t) {
    VT_DISPATCH_CASE(DType::kFloat32, float)
    VT_DISPATCH_CASE(DType::kFloat64, double)
    VT_DISPATCH_CASE(DType::kInt8, int8_t)
    VT_DISPATCH_CASE(DType::kUInt8, uint8_t)
    VT_DISPATCH_CASE(DType::kInt16, int16_t)
    VT_DISPATCH_CASE(DType::kUInt16, uint16_t)
    VT_DISPATCH_CASE(DType::kInt32, int32_t)
    VT_DISPATCH_CASE(DType::kUInt32, uint32_t)
    VT_DISPATCH_CASE(DType::kInt64, int64_t)
    VT_DISPATCH_CASE(DType::kUInt64, uint64_t)
    default: return Unimplemented(std::string("dtype ") + DTypeName(t) + " not supported");
  }
}

// Every fixed-size dtype by element size (for data movement ops): f(T{}) with an unsigned
// integer of the element's width, or std::string for strings.
template <typename F>
Status DispatchBySize(DType t, F&& f) {
  if (t == DType::kString) return f(std::string{});
  switch (DTypeSize(t)) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    case 16: {
      struct U128 { uint64_t a, b; };
      return f(U128{});
    }
    default: return Unimplemented(std::string("dtype ") + DTypeName(t) + " not supported");
  }
}

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
