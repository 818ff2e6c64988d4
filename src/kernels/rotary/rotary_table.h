// The rotary embedding kernel table: one row per microkernel (rotary_ukernel.h). The same rows
// drive run-time dispatch, the unit tests (every row against the twin and the definition) and
// the operator's choice. Every row computes the same function.
#pragma once

#include <span>
#include <string_view>

#include "kernels/rotary/rotary_ukernel.h"

namespace vt::kernels {

struct RotaryKernel {
  // "rotary_f32_f32_1x<lanes>_<isa>": f32 rows in and out, <lanes> elements per vector.
  const char* name;
  const char* isa;  // "avx512", "avx2", "portable"
  size_t lanes;
  RotaryRowsFn ukernel;
  bool (*supported)();  // run-time CPU (and OS state) check
};

// All rows, fastest first; the last row is the portable reference twin.
std::span<const RotaryKernel> RotaryKernels();
// Row by name, or null.
const RotaryKernel* FindRotaryKernel(std::string_view name);
// The row for a session capped at ISA level `isa` ("avx512", "avx2", "portable"): the first
// supported row at or below it among those VT_ROTARY_KERNEL (a row or ISA name) allows.
const RotaryKernel& RotaryKernelForIsa(std::string_view isa);

}  // namespace vt::kernels
