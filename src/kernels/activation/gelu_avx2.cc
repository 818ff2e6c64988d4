// gelu_f32_f32_1x8_avx2 (gelu_ukernel.h). Compiled with -mavx2 -mfma; called only after
// run-time detection. The functions are gelu_simd_inl.h's over 8-lane vectors; the row tail
// uses vmaskmovps, which does not touch memory past the row.
#include "kernels/cpu/vec_avx2_inl.h"
#include "kernels/activation/gelu_simd_inl.h"

namespace vt::kernels {

void gelu_f32_f32_1x8_avx2(const GeluRow& row) { gelu_simd::Row<VecAvx2>(row); }

}  // namespace vt::kernels
