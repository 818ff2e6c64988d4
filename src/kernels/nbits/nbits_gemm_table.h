// The MatMulNBits (bits = 4) GEMM kernel table: one row per microkernel (nbits_ukernel.h). The
// same rows drive run-time dispatch, the unit tests (every row against the reference twin) and
// the benchmark (issue #6 item 1). Every row reads the same panels (kNBitsRows high), so a
// weight packed once runs on any row.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {

struct NBitsGemmKernel {
  const char* name;  // "gemm_nbits4_f32_<MR>x16_<isa>"
  const char* isa;   // "avx512", "portable"
  size_t mr;         // most activation rows per call (kNBitsMaxMr)
  NBitsGemmUkernelFn ukernel;
  bool (*supported)();  // run-time CPU (and OS state) check
};

// All rows, fastest first; the last row is portable.
std::span<const NBitsGemmKernel> NBitsGemmKernels();
// Row by name, or null.
const NBitsGemmKernel* FindNBitsGemmKernel(std::string_view name);
// The row used by default, chosen once per process: the first supported row, unless the
// environment variable VT_NBITS_GEMM_KERNEL names a supported row or ISA.
const NBitsGemmKernel& DefaultNBitsGemmKernel();
const NBitsGemmKernel& PortableNBitsGemmKernel();

}  // namespace vt::kernels
