#include "kernels/activation/gelu_table.h"

#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {
namespace {

const GeluKernel kAll[] = {
    {"gelu_f32_f32_1x16_avx512", "avx512", 16, gelu_f32_f32_1x16_avx512, CpuHasAvx512},
    {"gelu_f32_f32_1x8_avx2", "avx2", 8, gelu_f32_f32_1x8_avx2, CpuHasAvx2},
    {"gelu_f32_f32_1x1_scalar", "portable", 1, GeluReference, AlwaysSupported},
};

}  // namespace

std::span<const GeluKernel> GeluKernels() { return kAll; }

const GeluKernel* FindGeluKernel(std::string_view name) {
  for (const auto& k : kAll)
    if (name == k.name) return &k;
  return nullptr;
}

const GeluKernel& GeluKernelForIsa(std::string_view isa) {
  return ChooseKernelRowForIsa(std::span<const GeluKernel>(kAll), isa, "VT_GELU_KERNEL");
}

}  // namespace vt::kernels
