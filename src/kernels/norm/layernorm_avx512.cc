// layernorm_f32_f32_1x16_avx512 (layernorm_ukernel.h). Compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512dq -mfma; called only after run-time detection. The passes are
// layernorm_simd_inl.h's over 16-lane vectors with masked (fault-free) row tails.
#include "kernels/cpu/vec_avx512_inl.h"

// GCC 12 reports the undefined pass-through operands inside its own AVX-512 intrinsic headers
// (_mm512_reduce_add_ps) once these templates are inlined: a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "kernels/norm/layernorm_simd_inl.h"

namespace vt::kernels {

void layernorm_f32_f32_1x16_avx512(const LayerNormRow& row, float* mean, float* inv_std) {
  layernorm_simd::Row<VecAvx512>(row, mean, inv_std);
}

}  // namespace vt::kernels
