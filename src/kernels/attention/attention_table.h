// The attention kernel table: one row per microkernel (attention_ukernel.h). The same rows
// drive run-time dispatch, the unit tests (every row against the reference twin) and the
// benchmark. Every row takes f32 and f16 K / V rows and computes the same function, so an
// operator may pick any supported row for any call.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "kernels/attention/attention_ukernel.h"

namespace vt::kernels {

struct AttentionKernel {
  // "attention_f32f16kv_f32_<MR>x<KB>_<isa>": K / V rows f32 or f16, Q and output f32, score
  // tiles of MR query rows x KB keys.
  const char* name;
  const char* isa;   // "avx512", "avx2", "portable"
  size_t mr;         // query rows per score tile
  size_t key_block;  // keys per block of the online softmax
  AttentionUkernelFn ukernel;
  bool (*supported)();  // run-time CPU (and OS state) check
};

// All rows, fastest first; the last row is the portable reference twin.
std::span<const AttentionKernel> AttentionKernels();
// Row by name, or null.
const AttentionKernel* FindAttentionKernel(std::string_view name);
// The row used by default, chosen once per process: the first supported row, unless the
// environment variable VT_ATTENTION_KERNEL names a supported row or ISA.
const AttentionKernel& DefaultAttentionKernel();
// The row for a session whose kernels are capped at ISA level `isa` ("avx512", "avx2",
// "portable"): the default row if it belongs to that level or below, else the first supported
// row at or below it.
const AttentionKernel& AttentionKernelForIsa(std::string_view isa);
const AttentionKernel& PortableAttentionKernel();

}  // namespace vt::kernels
