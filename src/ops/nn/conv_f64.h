// Direct N-d convolution in double for Conv on float64 tensors (src/ops/nn/conv.cc), so that
// float64 keeps its precision instead of going through the float32 GEMM.
#pragma once

#include <cstdint>

#include "ops/nn/conv_geometry.h"

namespace vt::ops {

// y [N, M, out...] = sum over the group's input channels and kernel taps of
// x [N, C, in...] * w [M, C/group, k...], plus b [M] when non-null. Taps falling in the padding
// contribute nothing. Preconditions: the shapes agree with `geo`, C and M divisible by group.
void DirectConvF64(const SpatialGeometry& geo, int64_t N, int64_t C, int64_t M, int64_t group,
                   const double* x, const double* w, const double* b, double* y);

}  // namespace vt::ops
