// The rows of the row normalization and GELU kernel families (kernels/norm/layernorm_table.h,
// kernels/activation/gelu_table.h) an operator uses: chosen once when its node is prepared,
// capped at the session's ISA level (--arch) like every other kernel choice.
#pragma once

#include "kernels/activation/gelu_table.h"
#include "kernels/norm/layernorm_table.h"
#include "vtensor/exec/kernel.h"
#include "vtensor/forms/weight_provider.h"

namespace vt::ops {

inline const char* KernelIsaName(const KernelInit& init) {
  const IsaLevel isa = init.weights().isa();
  return isa == IsaLevel::kAvx512 ? "avx512" : isa == IsaLevel::kAvx2 ? "avx2" : "portable";
}

inline const kernels::LayerNormKernel& LayerNormRowFor(const KernelInit& init) {
  return kernels::LayerNormKernelForIsa(KernelIsaName(init));
}

inline const kernels::GeluKernel& GeluRowFor(const KernelInit& init) {
  return kernels::GeluKernelForIsa(KernelIsaName(init));
}

}  // namespace vt::ops
