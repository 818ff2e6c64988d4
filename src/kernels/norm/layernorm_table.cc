#include "kernels/norm/layernorm_table.h"

#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {
namespace {

const LayerNormKernel kAll[] = {
    {"layernorm_f32_f32_1x16_avx512", "avx512", 16, layernorm_f32_f32_1x16_avx512, CpuHasAvx512},
    {"layernorm_f32_f32_1x8_avx2", "avx2", 8, layernorm_f32_f32_1x8_avx2, CpuHasAvx2},
    {"layernorm_f32_f32_1x1_scalar", "portable", 1, LayerNormReference, AlwaysSupported},
};

}  // namespace

std::span<const LayerNormKernel> LayerNormKernels() { return kAll; }

const LayerNormKernel* FindLayerNormKernel(std::string_view name) {
  for (const auto& k : kAll)
    if (name == k.name) return &k;
  return nullptr;
}

const LayerNormKernel& LayerNormKernelForIsa(std::string_view isa) {
  return ChooseKernelRowForIsa(std::span<const LayerNormKernel>(kAll), isa, "VT_LAYERNORM_KERNEL");
}

}  // namespace vt::kernels
