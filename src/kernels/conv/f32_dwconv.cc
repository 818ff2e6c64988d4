// Depthwise kernel table and the portable/reference kernel.
#include "kernels/conv/f32_dwconv.h"

#include "kernels/cpu/kernel_select.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace vt::kernels {

void f32_dwconv_multitap_scalar(const F32DwConvParams* p, const float* x, float* y) {
  for (size_t r = 0; r < p->rows; ++r) {
    float* yr = y + r * p->y_pitch;
    const float* xr = x + r * p->x_pitch;
    for (size_t i = 0; i < p->width; ++i) yr[i] = p->bias;
    for (size_t t = 0; t < p->taps; ++t) {
      const float wt = p->w[t];
      const float* xt = xr + p->off[t];
      for (size_t i = 0; i < p->width; ++i) yr[i] += wt * xt[i];
    }
    if (p->clamp)
      for (size_t i = 0; i < p->width; ++i) yr[i] = std::min(std::max(yr[i], p->min), p->max);
  }
}

namespace {
constexpr auto Avx512Supported = CpuHasAvx512;
constexpr auto Avx2Supported = CpuHasAvx2;
constexpr auto Always = AlwaysSupported;

const F32DwConvKernel kKernels[] = {
    {"f32_dwconv_multitap_avx512", "avx512", f32_dwconv_multitap_avx512, Avx512Supported},
    {"f32_dwconv_multitap_avx2", "avx2", f32_dwconv_multitap_avx2, Avx2Supported},
    {"f32_dwconv_multitap_scalar", "portable", f32_dwconv_multitap_scalar, Always},
};

const F32DwConvKernel& Choose() {
  return ChooseKernelRow(std::span<const F32DwConvKernel>(kKernels), "VT_F32_DWCONV_KERNEL");
}
}  // namespace

std::span<const F32DwConvKernel> F32DwConvKernels() { return kKernels; }

const F32DwConvKernel& DefaultF32DwConvKernel() {
  static const F32DwConvKernel& k = Choose();
  return k;
}

const F32DwConvKernel& F32DwConvKernelForIsa(std::string_view isa) {
  return ChooseKernelRowForIsa(std::span<const F32DwConvKernel>(kKernels), isa,
                               "VT_F32_DWCONV_KERNEL");
}

}  // namespace vt::kernels
