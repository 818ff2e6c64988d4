// col2im for transposed convolution: scatters the GEMM result
// col[M * prod(kernel), in positions] (row (m, j1..jn), column = input position) into
// y[M, out...] at out position i * stride - pad + j * dilation (per axis); positions outside
// [0, out) are dropped. By default values are added (y initialised by the caller, e.g. with
// the bias); `assign` stores instead, valid only when every output is hit exactly once
// (kernel == stride, dilation 1, no pads, out == in * stride).
//
// Only input positions whose first spatial index lies in [in0_begin, in0_end) are scattered,
// from a col block holding just those columns (row stride = (in0_end - in0_begin) * prod(in[1:])),
// so the caller can produce col in cache-sized slices.
#pragma once

#include <cstdint>

namespace vt::kernels {

struct F32Col2Im {
  int rank;  // spatial axes, <= 8
  int64_t M;
  int64_t in[8], kernel[8], stride[8], dilation[8], pad[8], out[8];
  bool assign = false;
};

void ScatterF32Col2Im(const F32Col2Im& p, int64_t in0_begin, int64_t in0_end, const float* col,
                      float* y);

}  // namespace vt::kernels
