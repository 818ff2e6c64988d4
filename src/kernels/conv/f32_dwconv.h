// Depthwise convolution kernels (ONNX Conv with group == C_in == C_out), one channel at a time.
//
// The channel's padded input is first rearranged into phase planes (f32_conv_pack.h, C = 1),
// which turns any 1-D/2-D depthwise convolution, whatever its stride, dilation and padding,
// into a multi-tap filter over rows of the "wide" output grid (row pitch Wq):
//   y[r * y_pitch + i] = bias + sum_{t < taps} w[t] * x[off[t] + r * x_pitch + i]
// for r < rows, i < width, followed by an optional min/max clamp. Narrow maps run as one flat
// row (rows = 1, width = OH * Wq; the caller drops the junk columns), wide ones row by row
// straight into Y. Kernels may block several rows so that one input load feeds the taps of
// several output rows (taps whose offsets differ by multiples of x_pitch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace vt::kernels {

struct F32DwConvParams {
  size_t width;        // outputs per row
  size_t rows;         // output rows
  size_t x_pitch;      // floats between consecutive rows of x
  size_t y_pitch;      // floats between consecutive rows of y
  size_t taps;         // filter taps
  const int64_t* off;  // [taps] input offsets; x[off[t] + r * x_pitch + i] readable
  const float* w;      // [taps]
  float bias;
  bool clamp = false;
  float min = 0.0f, max = 0.0f;
};

using F32DwConvFn = void (*)(const F32DwConvParams* p, const float* x, float* y);

// Scalar reference twin and portable fallback.
void f32_dwconv_multitap_scalar(const F32DwConvParams* p, const float* x, float* y);
// AVX-512F: dense 3x3 / 5x5 filters register-blocked over rows (weights in registers, each
// load shared by several output rows); other filters 128 outputs per step; masked tails.
void f32_dwconv_multitap_avx512(const F32DwConvParams* p, const float* x, float* y);
// AVX2 + FMA: 32 outputs per step, then 8, then a scalar tail (fused multiply-adds throughout).
void f32_dwconv_multitap_avx2(const F32DwConvParams* p, const float* x, float* y);

struct F32DwConvKernel {
  const char* name;
  const char* isa;
  F32DwConvFn fn;
  bool (*supported)();
};

// Rows fastest first; the last one is portable.
std::span<const F32DwConvKernel> F32DwConvKernels();
// First supported row (VT_F32_DWCONV_KERNEL may name a row or an ISA), chosen once.
const F32DwConvKernel& DefaultF32DwConvKernel();
// The row for a session capped at ISA `isa` ("avx512", "avx2", "portable": a session's --arch).
const F32DwConvKernel& F32DwConvKernelForIsa(std::string_view isa);

}  // namespace vt::kernels
