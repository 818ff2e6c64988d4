#include "kernels/rotary/rotary_table.h"

#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {
namespace {

const RotaryKernel kAll[] = {
    {"rotary_f32_f32_1x16_avx512", "avx512", 16, rotary_f32_f32_1x16_avx512, CpuHasAvx512},
    {"rotary_f32_f32_1x8_avx2", "avx2", 8, rotary_f32_f32_1x8_avx2, CpuHasAvx2},
    {"rotary_f32_f32_1x1_scalar", "portable", 1, RotaryRowsReference, AlwaysSupported},
};

}  // namespace

std::span<const RotaryKernel> RotaryKernels() { return kAll; }

const RotaryKernel* FindRotaryKernel(std::string_view name) {
  for (const auto& k : kAll)
    if (name == k.name) return &k;
  return nullptr;
}

const RotaryKernel& RotaryKernelForIsa(std::string_view isa) {
  return ChooseKernelRowForIsa(std::span<const RotaryKernel>(kAll), isa, "VT_ROTARY_KERNEL");
}

}  // namespace vt::kernels
