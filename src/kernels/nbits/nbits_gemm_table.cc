#include "kernels/nbits/nbits_gemm_table.h"

#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {
namespace {

const NBitsGemmKernel kKernels[] = {
    {"gemm_nbits4_f32_8x16_avx512", "avx512", kNBitsMaxMr, gemm_nbits4_f32_8x16_avx512,
     CpuHasAvx512},
    {"gemm_nbits4_f32_8x16_scalar", "portable", kNBitsMaxMr, gemm_nbits4_f32_8x16_scalar,
     AlwaysSupported},
};

}  // namespace

std::span<const NBitsGemmKernel> NBitsGemmKernels() { return kKernels; }

const NBitsGemmKernel* FindNBitsGemmKernel(std::string_view name) {
  for (const auto& k : kKernels)
    if (name == k.name) return &k;
  return nullptr;
}

const NBitsGemmKernel& DefaultNBitsGemmKernel() {
  static const NBitsGemmKernel& k =
      ChooseKernelRow(std::span<const NBitsGemmKernel>(kKernels), "VT_NBITS_GEMM_KERNEL");
  return k;
}

const NBitsGemmKernel& PortableNBitsGemmKernel() { return kKernels[std::size(kKernels) - 1]; }

}  // namespace vt::kernels
