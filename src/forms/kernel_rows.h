// The kernel-table rows a device of each ISA level runs, as the form rows need them: a form's
// panel size and kernel name come from the row the runtime picks on that level, so a form
// packed here is read by exactly that kernel there.
#pragma once

#include <cstdint>

#include "kernels/gemm/f32_gemm_table.h"
#include "kernels/gemm/f32_gemv.h"
#include "kernels/q4/q4_gemm_table.h"
#include "vtensor/forms/isa.h"

namespace vt {

// First row (supported or not) of `isa` in the f32 GEMM table: the row the default dispatch
// picks on a CPU whose best level is `isa`. Null when the table has none.
const kernels::F32GemmKernel* FirstF32GemmRow(IsaLevel isa);

// The row the runtime uses for `m` rows on a CPU of level `isa` (kernels::F32GemmKernelForM's
// rule for that level), or null.
const kernels::F32GemmKernel* F32GemmRowForM(IsaLevel isa, int64_t m);

// The small-M in-place row (kernels/gemm/f32_gemv.h) of `isa` for a B stored [N, K] (`b_trans`)
// or [K, N], or null.
const kernels::F32GemvKernel* F32GemvRow(IsaLevel isa, bool b_trans);

// The q4_0 table row a device of level `isa` uses (its panel height decides the layout).
// On AVX-512 the int8-activation VNNI row (same panel height) is preferred when this CPU has
// it: the packed bytes are the same, only the kernel reading them differs. Null when the table
// is empty.
const kernels::Q4GemmKernel* Q4_0GemmRow(IsaLevel isa);

// Name of the MatMulNBits row the operator runs on `isa` (`q8`: int8 activations allowed).
const char* NBitsGemmRowName(IsaLevel isa, bool q8);

}  // namespace vt
