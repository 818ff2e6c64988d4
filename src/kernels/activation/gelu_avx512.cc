// gelu_f32_f32_1x16_avx512 (gelu_ukernel.h). Compiled with -mavx512f -mavx512bw -mavx512vl
// -mavx512dq -mfma; called only after run-time detection. The functions are gelu_simd_inl.h's
// over 16-lane vectors with a masked (fault-free) row tail.
#include "kernels/cpu/vec_avx512_inl.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "kernels/activation/gelu_simd_inl.h"

namespace vt::kernels {

void gelu_f32_f32_1x16_avx512(const GeluRow& row) { gelu_simd::Row<VecAvx512>(row); }

}  // namespace vt::kernels
