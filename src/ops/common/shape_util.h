// Helpers shared by the shape-manipulation and data-movement kernels (shape_*, slice_*,
// concat_*, gather_*, index_*, misc_*, resize, grid_sample): reading integer list inputs,
// axis lists, and copying runs of elements of any dtype (strings included).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ops/common/op_util.h"

namespace vt::ops {

// Copies `n` elements of dtype `dt` from `src` to `dst` (non-overlapping). Fixed-size dtypes
// are memcpy'd; strings are assigned element by element.
inline void CopyElems(DType dt, void* dst, const void* src, int64_t n) {
  if (n <= 0) return;
  if (dt == DType::kString) {
    std::copy_n(static_cast<const std::string*>(src), n, static_cast<std::string*>(dst));
  } else {
    std::memcpy(dst, src, static_cast<size_t>(n) * DTypeSize(dt));
  }
}

// Byte pointer to element `i` of a dense buffer of `dt` elements.
inline const uint8_t* ElemPtr(const void* base, DType dt, int64_t i) {
  return static_cast<const uint8_t*>(base) + i * static_cast<int64_t>(DTypeSize(dt));
}
inline uint8_t* ElemPtr(void* base, DType dt, int64_t i) {
  return static_cast<uint8_t*>(base) + i * static_cast<int64_t>(DTypeSize(dt));
}

// `t` itself when its layout is strided, else a dense copy: packed (tiled/blocked) layouts
// have no per-dim strides, so view-producing ops densify them first.
inline Tensor StridedForm(const Tensor& t) { return t.layout().is_strided() ? t : t.Contiguous(); }

// Product of shape[begin, end).
int64_t DimProduct(const Shape& shape, size_t begin, size_t end);

// True for dtypes whose elements are integers (signed/unsigned, not bool).
inline bool IsIndexDType(DType t) { return t == DType::kInt32 || t == DType::kInt64; }

// Reads index input `i` (an int32/int64 tensor of any shape) as dense int64 values in
// row-major order. Errors: input missing, not a tensor, not int32/int64.
Expected<std::vector<int64_t>> ReadIndices(const KernelContext& ctx, size_t i, const char* what);

// Reads input `i` — an int32/int64 tensor of rank 0 or 1 — as a vector. Errors (naming the
// node and `what`): input missing, not a tensor, wrong dtype, rank > 1.
Expected<std::vector<int64_t>> ReadIntList(const KernelContext& ctx, size_t i, const char* what);

// Reads a one-element numeric input (rank 0 or shape [1]) as int64 / double.
Expected<int64_t> ReadIntScalar(const KernelContext& ctx, size_t i, const char* what);
Expected<double> ReadDoubleScalar(const KernelContext& ctx, size_t i, const char* what);

// Normalises every axis of `axes` against `rank` (negative counts from the back) and
// rejects duplicates. Errors: InvalidArgument naming the node.
Expected<std::vector<int64_t>> NormalizeAxisList(const KernelContext& ctx,
                                                 const std::vector<int64_t>& axes, int64_t rank);

// Normalises one axis in [-rank, rank-1]. Errors: InvalidArgument naming the node.
Expected<int64_t> NormalizeAxisFor(const KernelContext& ctx, int64_t axis, int64_t rank);

// Normalises index `v` against a dim of size `dim` (negative counts from the back).
// Errors: InvalidArgument naming the node and the index as given.
Status NormalizeIndex(const KernelContext& ctx, int64_t& v, int64_t dim);

// NormalizeIndex on every element of `idx`.
Status NormalizeIndices(const KernelContext& ctx, std::vector<int64_t>& idx, int64_t dim);

// GatherElements / ScatterElements indices: checks that `ishape` has the rank of `dshape`
// and does not exceed it on any dim but the "axis" attribute's, then normalises every
// element of `idx` against that axis. Returns the normalised axis. Errors: InvalidArgument
// naming the node.
Expected<int64_t> CheckElementsIndices(const KernelContext& ctx, const Shape& dshape,
                                       const Shape& ishape, std::vector<int64_t>& idx);

// GatherND / ScatterND: row-major element offset of the index tuple tup[0..m) over dims
// [first, first + m) of `shape`, whose row-major strides are `strides`. Each index is
// normalised as by NormalizeIndex.
Expected<int64_t> IndexTupleOffset(const KernelContext& ctx, const int64_t* tup, int64_t m,
                                   const Shape& shape, const std::vector<int64_t>& strides,
                                   int64_t first);

// Validates a shape produced from data (all dims >= 0, element count at most 2^32).
// Errors: InvalidArgument naming the node.
Status CheckOutputShape(const KernelContext& ctx, const Shape& shape);

// Writes `v` converted to dtype `dt` into the element at `dst` (numeric and 16-bit float
// dtypes, bool). Strings are not handled. Errors: Unimplemented for other dtypes.
Status StoreDouble(DType dt, void* dst, double v);

// Converts a (contiguous) numeric tensor to a float vector / writes floats into a tensor of
// dtype `dt` (integers are rounded to nearest and saturated).
std::vector<float> TensorToFloats(const Tensor& t);
void FloatsToTensor(const float* src, Tensor& dst);

}  // namespace vt::ops
