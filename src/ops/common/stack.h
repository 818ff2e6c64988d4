// Stacking and slicing helpers shared by the control-flow and sequence kernels (Loop/Scan scan
// outputs, ConcatFromSequence, SplitToSequence).
#pragma once

#include <vector>

#include "vtensor/tensor/tensor.h"

namespace vt::ops {

// Stacks `items` (same dtype and shape S, any layout) into a new contiguous tensor of shape
// [items.size()] + S. `dtype`/`elem_shape` give the result type when `items` is empty.
// Errors: InvalidArgument when dtypes or shapes differ (message names the first bad item).
Expected<Tensor> StackTensors(const std::vector<Tensor>& items, DType dtype,
                              const Shape& elem_shape);

// Moves dim 0 of `t` to position `axis` (0 <= axis < rank) and returns a contiguous tensor.
Tensor MoveLeadingAxis(const Tensor& t, int axis);

// View of index `index` along `axis` of `t`, with that axis removed (no copy).
Tensor SelectAlongAxis(const Tensor& t, int axis, int64_t index);

// View of [start, start+count) along `axis` of `t` (no copy).
Tensor NarrowAlongAxis(const Tensor& t, int axis, int64_t start, int64_t count);

}  // namespace vt::ops
