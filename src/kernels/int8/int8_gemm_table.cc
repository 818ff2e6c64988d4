#include "kernels/int8/int8_gemm_table.h"

#include "kernels/cpu/kernel_select.h"

#include <cstdlib>

namespace vt::kernels {
namespace {

constexpr auto Avx512VnniSupported = CpuHasAvx512Vnni;
constexpr auto Always = AlwaysSupported;

const Int8GemmKernel kKernels[] = {
    {"gemm_s8_u8_8x48_avx512vnni", 8, 48, "avx512vnni", gemm_s8_u8_8x48_avx512vnni,
     Avx512VnniSupported},
    {"gemm_s8_u8_12x32_avx512vnni", 12, 32, "avx512vnni", gemm_s8_u8_12x32_avx512vnni,
     Avx512VnniSupported},
    {"gemm_s8_u8_6x64_avx512vnni", 6, 64, "avx512vnni", gemm_s8_u8_6x64_avx512vnni,
     Avx512VnniSupported},
    {"gemm_s8_u8_4x16_scalar", 4, 16, "portable", gemm_s8_u8_4x16_scalar, Always},
};

const Int8GemmKernel& Choose() {
  return ChooseKernelRow(std::span<const Int8GemmKernel>(kKernels), "VT_INT8_GEMM_KERNEL");
}

}  // namespace

std::span<const Int8GemmKernel> Int8GemmKernels() { return kKernels; }

const Int8GemmKernel* FindInt8GemmKernel(std::string_view name) {
  for (const auto& k : kKernels)
    if (name == k.name) return &k;
  return nullptr;
}

const Int8GemmKernel& DefaultInt8GemmKernel() {
  static const Int8GemmKernel& k = Choose();
  return k;
}

const Int8GemmKernel& PortableInt8GemmKernel() { return kKernels[std::size(kKernels) - 1]; }

}  // namespace vt::kernels
