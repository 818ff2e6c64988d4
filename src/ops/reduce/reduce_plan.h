// Reduction geometry shared by Reduce*, ArgMax/ArgMin and the normalization kernels.
//
// Any set of reduced axes of a row-major tensor is brought to the canonical form
// [outer, reduce, inner]: element (o, r, i) lives at (o * reduce + r) * inner + i. When the
// reduced axes form one run after dropping size-1 dims and merging neighbours, this is the
// input itself (no copy); otherwise the plan asks for a transposed copy that moves every
// reduced axis innermost (inner = 1).
#pragma once

#include <cstdint>
#include <vector>

#include "vtensor/exec/kernel.h"

namespace vt::ops {

struct ReducePlan {
  int64_t outer = 1, reduce = 1, inner = 1;
  // Non-empty when the input must first be permuted (kept axes first, then reduced axes, each
  // in original order) and made contiguous; then inner == 1.
  std::vector<int64_t> perm;
  Shape out_shape;  // with or without the reduced dims, per keepdims
};

// Plans the reduction of `shape` over `axes` (already normalised to [0, rank), unique).
// An empty `axes` reduces nothing (outer * inner == numel, reduce == 1).
ReducePlan PlanReduce(const Shape& shape, const std::vector<int64_t>& axes, bool keepdims);

// Returns the input arranged as the plan's [outer, reduce, inner] contiguous buffer
// (a view when plan.perm is empty and `x` is contiguous).
Tensor ArrangeForReduce(const Tensor& x, const ReducePlan& plan);

// Reduced axes of a Reduce* node (ONNX Operators.md, ReduceSum-13 / ReduceMean-18 ...):
// the optional `axes` input when given, else the `axes` attribute. Axes are normalised and
// sorted. `*noop` is set when axes are empty and noop_with_empty_axes=1; empty axes otherwise
// mean "all axes" and are expanded here.
// Errors: InvalidArgument for an axes input that is not int64/int32 or not rank <= 1, an axis
// out of [-rank, rank) or a repeated axis.
Expected<std::vector<int64_t>> ReadReduceAxes(const KernelContext& ctx, int64_t rank, bool* noop);

// Normalises `axes` for `rank` and sorts them. Errors: out of range or repeated axis.
Expected<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank);

}  // namespace vt::ops
