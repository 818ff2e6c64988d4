// The int8 GEMM kernel table: one row per microkernel (u8 activations x s8 weights -> int32).
// The same rows drive run-time dispatch, the unit tests (every row against the scalar reference
// twin) and the benchmark (bench/kbench_main.cc).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "kernels/int8/int8_gemm_ukernel.h"

namespace vt::kernels {

struct Int8GemmKernel {
  const char* name;  // "gemm_s8_u8_<MR>x<NR>_<isa>"
  size_t mr;         // rows per tile (A panel height)
  size_t nr;         // columns per tile (B panel width; weights are packed per NR)
  const char* isa;   // "avx512vnni", "portable"
  Int8GemmUkernelFn ukernel;
  bool (*supported)();  // run-time CPU (and OS state) check
};

// All rows, in order of preference (fastest first). The last row is the portable one.
std::span<const Int8GemmKernel> Int8GemmKernels();

// Row by name, or null.
const Int8GemmKernel* FindInt8GemmKernel(std::string_view name);

// The kernel used by default, chosen once per process: the first supported row, unless the
// environment variable VT_INT8_GEMM_KERNEL names a supported row, or an ISA ("avx512vnni",
// "portable") to take that ISA's first supported row (any other value is ignored).
const Int8GemmKernel& DefaultInt8GemmKernel();

// The portable row (always supported).
const Int8GemmKernel& PortableInt8GemmKernel();

}  // namespace vt::kernels
