// Activation-epilogue kernel table and the portable/reference kernel.
#include "kernels/conv/f32_conv_act.h"

#include "kernels/cpu/kernel_select.h"

#include <cstdlib>
#include <string_view>

namespace vt::kernels {
namespace {

// Same expressions as the vector kernel: comparisons choose, so NaN passes through.
inline float Act(const F32ConvActParams& p, float v) {
  switch (p.act) {
    case F32ConvAct::kIdentity:
      return v;
    case F32ConvAct::kClamp:
      v = v < p.p0 ? p.p0 : v;
      return v > p.p1 ? p.p1 : v;
    case F32ConvAct::kLeakyRelu:
      return v < 0.0f ? v * p.p0 : v;
    case F32ConvAct::kHardSigmoid: {
      float h = p.p0 * v + p.p1;
      h = h < 0.0f ? 0.0f : h;
      return h > 1.0f ? 1.0f : h;
    }
    case F32ConvAct::kHardSwish: {
      float h = (1.0f / 6.0f) * v + 0.5f;
      h = h < 0.0f ? 0.0f : h;
      h = h > 1.0f ? 1.0f : h;
      return v * h;
    }
  }
  return v;
}

constexpr auto Avx512Supported = CpuHasAvx512;
constexpr auto Always = AlwaysSupported;

const F32ConvActKernel kKernels[] = {
    {"f32_conv_act_avx512", "avx512", f32_conv_act_avx512, Avx512Supported},
    {"f32_conv_act_scalar", "portable", f32_conv_act_scalar, Always},
};

const F32ConvActKernel& Choose() {
  return ChooseKernelRow(std::span<const F32ConvActKernel>(kKernels), "VT_F32_CONV_ACT_KERNEL");
}

}  // namespace

void f32_conv_act_scalar(const F32ConvActParams* p, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    float v = Act(*p, y[i]);
    if (p->affine) v = v * p->scale + p->shift;
    y[i] = v;
  }
}

std::span<const F32ConvActKernel> F32ConvActKernels() { return kKernels; }

const F32ConvActKernel& DefaultF32ConvActKernel() {
  static const F32ConvActKernel& k = Choose();
  return k;
}

const F32ConvActKernel& F32ConvActKernelForIsa(std::string_view isa) {
  return ChooseKernelRowForIsa(std::span<const F32ConvActKernel>(kKernels), isa,
                               "VT_F32_CONV_ACT_KERNEL");
}

}  // namespace vt::kernels
