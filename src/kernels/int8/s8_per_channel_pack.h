// Quantization of an f32 GEMM B operand into int8 column panels with one scale per output
// channel (the compact profile's Gemm form, vt.s8_per_channel_gemm_b_panels in
// docs/compiled-tensors.md; the f32 GEMM dequantizes it per K block).
//
// Layout: the logical B [K, N] is cut into ceil(N / nr) panels of nr columns; panel p holds
// K * nr int8 at byte p * K * nr, element (k, p * nr + j) at byte k * nr + j. Column n's scale
// is scales[n] = max_k |B(k, n)| / 127 (1 when that is 0 or not finite; NaN elements do not
// count), and its values are round-half-even(B(k, n) / scale) clamped to [-127, 127] (NaN -> 0).
// Columns past N (up to the last panel's end) are zero, as are their scales.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt::kernels {

// Bytes of the int8 panels (the scales are separate: ceil(N / nr) * nr floats).
inline size_t S8PerChannelPanelBytes(size_t nr, size_t K, size_t N) {
  return (N + nr - 1) / nr * nr * K;
}

// B is row-major [K, N] (`b_trans` false, row stride N) or [N, K] (`b_trans` true, row stride
// K). Writes S8PerChannelPanelBytes bytes to `q` and ceil(N / nr) * nr floats to `scales`.
// Streams the source in its own row order (two passes for [K, N]: column maxima, then values)
// and splits the work over up to omp_get_max_threads() OpenMP threads
// (kernels/cpu/parallel_pack.h); the bytes are the same for every thread count.
void QuantizeF32ToS8PerChannelPanels(size_t nr, size_t K, size_t N, const float* b, bool b_trans,
                                     int8_t* q, float* scales);

// Scalar reference twin: column by column, element by element.
void QuantizeF32ToS8PerChannelPanelsReference(size_t nr, size_t K, size_t N, const float* b,
                                              bool b_trans, int8_t* q, float* scales);

}  // namespace vt::kernels
