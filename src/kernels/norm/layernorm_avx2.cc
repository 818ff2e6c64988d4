// layernorm_f32_f32_1x8_avx2 (layernorm_ukernel.h). Compiled with -mavx2 -mfma; called only
// after run-time detection. The passes are layernorm_simd_inl.h's over 8-lane vectors; row
// tails use vmaskmovps, which does not touch memory past the row.
#include "kernels/cpu/vec_avx2_inl.h"
#include "kernels/norm/layernorm_simd_inl.h"

namespace vt::kernels {

void layernorm_f32_f32_1x8_avx2(const LayerNormRow& row, float* mean, float* inv_std) {
  layernorm_simd::Row<VecAvx2>(row, mean, inv_std);
}

}  // namespace vt::kernels
