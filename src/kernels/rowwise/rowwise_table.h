// The row-wise kernel table: one row per ISA, each with the three row functions of
// rowwise_ukernel.h. The same rows drive run-time dispatch, the unit tests (every row against
// the reference twin) and the benchmark.
#pragma once

#include <span>
#include <string_view>

#include "kernels/rowwise/rowwise_ukernel.h"

namespace vt::kernels {

struct RowwiseKernel {
  // "rowwise_f32_f32_1x<lanes>_<isa>": f32 rows in and out, one row at a time, <lanes>
  // elements per vector step.
  const char* name;
  const char* isa;  // "avx512", "avx2", "portable"
  size_t lanes;
  NormRowsFn norm;
  ActRowsFn act;
  RotaryRowsFn rotary;
  bool (*supported)();  // run-time CPU (and OS state) check
};

// All rows, fastest first; the last row is the portable reference twin.
std::span<const RowwiseKernel> RowwiseKernels();
// Row by name, or null.
const RowwiseKernel* FindRowwiseKernel(std::string_view name);
// The row used by default, chosen once per process: the first supported row, unless the
// environment variable VT_ROWWISE_KERNEL names a supported row or ISA.
const RowwiseKernel& DefaultRowwiseKernel();
const RowwiseKernel& PortableRowwiseKernel();

}  // namespace vt::kernels
