// ConvTranspose with a 2x2 kernel and stride 2 (dilation 1, no pads or output padding, one
// group): the upsampling of segmentation and detection heads. Each input pixel spreads into its
// own 2x2 block of output, so output row 2 ih + kh interleaves the kw = 0 and kw = 1 sums of input
// row ih: y(m, 2 ih + kh, 2 iw + kw) = bias[m] + sum_c W(c, m, kh, kw) x(c, ih, iw).
//
// The GEMM path computes col = W^T X (rows (m, kh, kw)) into a buffer and scatters it into Y
// (col2im); this kernel sums MR output channels x 16 input columns x both kw in registers and
// interleaves the two taps' vectors into 32 output columns, with no col buffer. The sums follow
// kernels/gemm/f32_gemm_ukernel.h (from zero, one fused multiply-add per channel in order, then
// added to the bias; C <= 128 is one sum block) with subnormals flushed as the GEMM flushes them,
// so the output is the same bits as the GEMM + col2im path (the test compares bytes).
#pragma once

#include <cstdint>

namespace vt::kernels {

// One image: x [C, H, W] -> y [M, 2 H, 2 W].
struct F32ConvTranspose2x2Geometry {
  int64_t C = 0, H = 0, W = 0, M = 0;
};

// Input channels the kernel takes (one sum block of the GEMM order).
inline constexpr int64_t kF32ConvTranspose2x2MaxChannels = 128;

// Whether f32_conv_transpose_2x2_avx512 takes `g`: 1 <= C <= 128, W >= 8, H, M >= 1, and an
// AVX-512 CPU.
bool F32ConvTranspose2x2Applies(const F32ConvTranspose2x2Geometry& g);

// Output rows [2 ih0, 2 ih1) of y [M, 2 H, 2 W] from input rows [ih0, ih1); `w` [C, M, 2, 2]
// contiguous (ONNX's ConvTranspose weight layout), `bias` [M] or null. Requires
// F32ConvTranspose2x2Applies(g).
void f32_conv_transpose_2x2_avx512(const F32ConvTranspose2x2Geometry& g, const float* w,
                                   const float* bias, const float* x, int64_t ih0, int64_t ih1,
                                   float* y);

}  // namespace vt::kernels
