// The GELU-family kernel table: one row per microkernel (gelu_ukernel.h). The same rows drive
// run-time dispatch, the unit tests (every row against the definition and the twin) and the
// benchmark. Every row computes the same functions, so an operator may use any supported row.
#pragma once

#include <span>
#include <string_view>

#include "kernels/activation/gelu_ukernel.h"

namespace vt::kernels {

struct GeluKernel {
  // "gelu_f32_f32_1x<lanes>_<isa>": f32 in and out, one row per call, <lanes> elements per
  // vector.
  const char* name;
  const char* isa;  // "avx512", "avx2", "portable"
  size_t lanes;
  GeluUkernelFn ukernel;
  bool (*supported)();  // run-time CPU (and OS state) check
};

// All rows, fastest first; the last row is the portable reference twin.
std::span<const GeluKernel> GeluKernels();
// Row by name, or null.
const GeluKernel* FindGeluKernel(std::string_view name);
// The row for a session capped at ISA level `isa` ("avx512", "avx2", "portable"): the first
// supported row at or below it among those VT_GELU_KERNEL (a row or ISA name) allows.
const GeluKernel& GeluKernelForIsa(std::string_view isa);

}  // namespace vt::kernels
