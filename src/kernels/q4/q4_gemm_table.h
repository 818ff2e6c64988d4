// The q4_0 and q4_k GEMM kernel tables: one row per microkernel (q4_ukernel.h). The same rows
// drive run-time dispatch, the unit tests (every row against the reference twin) and the
// benchmark.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "kernels/q4/q4_ukernel.h"

namespace vt::kernels {

struct Q4GemmKernel {
  // "gemm_<q4_0|q4_k>_<f32|q8>_<MR>x<ROWS>_<isa>": f32 = f32 activations in the kernel,
  // q8 = activations quantized to int8 per 32-element block first (q4_ukernel.h).
  const char* name;
  const char* isa;   // "avx512vnni", "avx512", "avx2", "portable"
  size_t mr;         // most activation rows per call (kQ4MaxMr)
  size_t rows;       // panel height: the `rows` of BlockQuantizedWeight(..., kInputBlockMajor)
  Q4GemmUkernelFn ukernel;  // f32 rows; null on q8 rows
  bool (*supported)();      // run-time CPU (and OS state) check
  Q4QuantizeXFn quantize_x = nullptr;        // q8 rows: the activation quantizer, else null
  Q4GemmQ8UkernelFn q8_ukernel = nullptr;    // q8 rows: the microkernel, else null
};

// All rows, in order of preference (fastest first). The last row is portable. The q4_0 q8 row
// comes first and has the same panel height (16) as the f32 AVX-512 row, so weights packed
// for either run on both.
std::span<const Q4GemmKernel> Q4_0GemmKernels();
std::span<const Q4GemmKernel> Q4_KGemmKernels();

// Row by name, or null.
const Q4GemmKernel* FindQ4_0GemmKernel(std::string_view name);
const Q4GemmKernel* FindQ4_KGemmKernel(std::string_view name);

// The kernel used by default, chosen once per process: the first supported row, unless the
// environment variable (VT_Q4_GEMM_KERNEL for q4_0, VT_Q4K_GEMM_KERNEL for q4_k) names a
// supported row, or an ISA ("avx512vnni", "avx512", "avx2", "portable") to pick that ISA's
// first supported row; any other value is ignored. Weights must be packed with the chosen
// row's `rows`.
const Q4GemmKernel& DefaultQ4_0GemmKernel();
const Q4GemmKernel& DefaultQ4_KGemmKernel();

// The portable rows (always supported).
const Q4GemmKernel& PortableQ4_0GemmKernel();
const Q4GemmKernel& PortableQ4_KGemmKernel();

}  // namespace vt::kernels
