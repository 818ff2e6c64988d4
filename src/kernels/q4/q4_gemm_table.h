// The q4_0 and q4_k GEMM kernel tables: one row per microkernel (q4_ukernel.h). The same rows
// drive run-time dispatch, the unit tests (every row against the reference twin) and the
// benchmark (issue #6 items 1-2).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "kernels/q4/q4_ukernel.h"

namespace vt::kernels {

struct Q4GemmKernel {
  const char* name;  // "gemm_<q4_0|q4_k>_f32_<MR>x<ROWS>_<isa>"
  const char* isa;   // "avx512vnni", "avx512", "avx2", "portable"
  size_t mr;         // most activation rows per call (kQ4MaxMr)
  size_t rows;       // panel height: the `rows` of BlockQuantizedWeight(..., kInputBlockMajor)
  Q4GemmUkernelFn ukernel;
  bool (*supported)();  // run-time CPU (and OS state) check
};

// All rows, in order of preference (fastest first). The last row is portable.
std::span<const Q4GemmKernel> Q4_0GemmKernels();
std::span<const Q4GemmKernel> Q4_KGemmKernels();

// Row by name, or null.
const Q4GemmKernel* FindQ4_0GemmKernel(std::string_view name);
const Q4GemmKernel* FindQ4_KGemmKernel(std::string_view name);

// The kernel used by default, chosen once per process: the first supported row, unless the
// environment variable (VT_Q4_GEMM_KERNEL for q4_0, VT_Q4K_GEMM_KERNEL for q4_k) names a
// supported row, or an ISA ("avx512", "avx2", "portable") to pick that ISA's first supported
// row; any other value is ignored. Weights must be packed with the chosen row's `rows`.
const Q4GemmKernel& DefaultQ4_0GemmKernel();
const Q4GemmKernel& DefaultQ4_KGemmKernel();

// The portable rows (always supported).
const Q4GemmKernel& PortableQ4_0GemmKernel();
const Q4GemmKernel& PortableQ4_KGemmKernel();

}  // namespace vt::kernels
