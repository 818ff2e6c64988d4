// Depthwise convolution kernels (ONNX Conv with group == C_in == C_out), one channel at a time.
//
// The channel's padded input is first rearranged into phase planes (f32_conv_pack.h, C = 1),
// which turns any 1-D/2-D depthwise convolution, whatever its stride, dilation and padding,
// into a flat multi-tap filter over the "wide" output grid n = oh * Wq + ow:
//   y[n] = bias + sum_{t < taps} w[t] * x[off[t] + n],   n < count
// followed by an optional min/max clamp. The caller drops the junk columns ow >= OW. Working on
// the flat grid keeps every vector full even for narrow feature maps (no row edges).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace vt::kernels {

struct F32DwConvParams {
  size_t count;        // outputs
  size_t taps;         // filter taps
  const int64_t* off;  // [taps] input offsets (x[off[t] + n] must be readable for n < count)
  const float* w;      // [taps]
  float bias;
  bool clamp = false;
  float min = 0.0f, max = 0.0f;
};

using F32DwConvFn = void (*)(const F32DwConvParams* p, const float* x, float* y);

// Scalar reference twin and portable fallback.
void f32_dwconv_multitap_scalar(const F32DwConvParams* p, const float* x, float* y);
// AVX-512F: 64 outputs per step (4 independent accumulators), masked tail.
void f32_dwconv_multitap_avx512(const F32DwConvParams* p, const float* x, float* y);

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

}  // namespace vt::kernels
