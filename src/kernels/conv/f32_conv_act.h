// Activation epilogues of fused convolutions (passes/fuse_conv.cc): applied in place to
// one output channel's values right after the GEMM or depthwise kernel wrote them, so the data
// is still in L1/L2:
//   y[i] = act(y[i]) * scale + shift          (the affine step only when `affine`)
// act: identity, clamp(min = p0, max = p1), LeakyRelu(alpha = p0), HardSigmoid(alpha = p0,
// beta = p1) = clamp(alpha * x + beta, 0, 1), HardSwish = x * HardSigmoid(x; 1/6, 1/2).
// Comparisons are written so that NaN inputs stay NaN except for the clamp of kClamp.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace vt::kernels {

enum class F32ConvAct { kIdentity, kClamp, kLeakyRelu, kHardSigmoid, kHardSwish };

struct F32ConvActParams {
  F32ConvAct act = F32ConvAct::kIdentity;
  float p0 = 0.0f, p1 = 0.0f;
  bool affine = false;
  float scale = 1.0f, shift = 0.0f;
};

using F32ConvActFn = void (*)(const F32ConvActParams* p, float* y, size_t n);

// Scalar reference twin and portable fallback.
void f32_conv_act_scalar(const F32ConvActParams* p, float* y, size_t n);
// AVX-512F: 64 values per step, masked tail.
void f32_conv_act_avx512(const F32ConvActParams* p, float* y, size_t n);

struct F32ConvActKernel {
  const char* name;
  const char* isa;
  F32ConvActFn fn;
  bool (*supported)();
};

// Rows fastest first; the last one is portable.
std::span<const F32ConvActKernel> F32ConvActKernels();
// First supported row (VT_F32_CONV_ACT_KERNEL may name a row or an ISA), chosen once.
const F32ConvActKernel& DefaultF32ConvActKernel();
// The row of a session capped at ISA `isa` ("avx512", "avx2", "portable"):
// DefaultF32ConvActKernel() when its ISA is at most `isa`, else the first supported row at most
// `isa` (kernels/cpu/kernel_select.h ChooseKernelRowForIsa).
const F32ConvActKernel& F32ConvActKernelForIsa(std::string_view isa);

}  // namespace vt::kernels
