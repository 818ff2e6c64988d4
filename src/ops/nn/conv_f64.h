// Direct N-d convolution and transposed convolution in double for Conv / ConvTranspose on
// float64 tensors (src/ops/nn/conv.cc, conv_transpose.cc), so that float64 keeps its precision
// instead of going through the float32 GEMM.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/nn/conv_geometry.h"

namespace vt::ops {

// y [N, M, out...] = sum over the group's input channels and kernel taps of
// x [N, C, in...] * w [M, C/group, k...], plus b [M] when non-null. Taps falling in the padding
// contribute nothing. Preconditions: the shapes agree with `geo`, C and M divisible by group.
void DirectConvF64(const SpatialGeometry& geo, int64_t N, int64_t C, int64_t M, int64_t group,
                   const double* x, const double* w, const double* b, double* y);

// ConvTranspose: y [N, M, out...] = b[m] + sum of x[n, c, i...] * w[c, m % (M/group), k...] over
// the group's channels c and every (input position i, tap k) with
// i * stride - pad_begin + k * dilation = the output position on each axis (positions outside
// the output are dropped). w is [C, M/group, k...].
void DirectConvTransposeF64(const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                            const std::vector<int64_t>& stride, const std::vector<int64_t>& dil,
                            const std::vector<int64_t>& pad_begin, const std::vector<int64_t>& out,
                            int64_t N, int64_t C, int64_t M, int64_t group, const double* x,
                            const double* w, const double* b, double* y);

}  // namespace vt::ops
