// The row normalization kernel table: one row per microkernel (layernorm_ukernel.h). The same
// rows drive run-time dispatch, the unit tests (every row against the reference twin) and the
// benchmark. Every row computes the same function, so an operator may use any supported row.
#pragma once

#include <span>
#include <string_view>

#include "kernels/norm/layernorm_ukernel.h"

namespace vt::kernels {

struct LayerNormKernel {
  // "layernorm_f32_f32_1x<lanes>_<isa>": f32 rows in and out, one row per call, <lanes>
  // elements per vector.
  const char* name;
  const char* isa;  // "avx512", "avx2", "portable"
  size_t lanes;
  LayerNormUkernelFn ukernel;
  bool (*supported)();  // run-time CPU (and OS state) check
};

// All rows, fastest first; the last row is the portable reference twin.
std::span<const LayerNormKernel> LayerNormKernels();
// Row by name, or null.
const LayerNormKernel* FindLayerNormKernel(std::string_view name);
// The row for a session whose kernels are capped at ISA level `isa` ("avx512", "avx2",
// "portable"): the first supported row at or below that level, chosen among the rows the
// environment variable VT_LAYERNORM_KERNEL allows (a row or ISA name; unset: all).
const LayerNormKernel& LayerNormKernelForIsa(std::string_view isa);

}  // namespace vt::kernels
