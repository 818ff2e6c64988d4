#include "kernels/q4/q4_gemm_table.h"

#include "kernels/cpu/kernel_select.h"

#include <cstdlib>

namespace vt::kernels {
namespace {

constexpr auto Avx512Supported = CpuHasAvx512;
// The AVX2 row's file also uses F16C (scale conversion); the VNNI row's also VBMI (vpermt2b).
constexpr auto Avx2Supported = CpuHasAvx2F16c;
bool Avx512VnniSupported() {
#if defined(__x86_64__) || defined(__i386__)
  return CpuHasAvx512Vnni() && __builtin_cpu_supports("avx512vbmi");
#else
  return false;
#endif
}
constexpr auto Always = AlwaysSupported;

const Q4GemmKernel kQ4_0Kernels[] = {
    {"gemm_q4_0_q8_8x16_avx512vnni", "avx512vnni", kQ4MaxMr, 16, nullptr, Avx512VnniSupported,
     Q4_0QuantizeXQ8Avx512, gemm_q4_0_q8_8x16_avx512vnni},
    {"gemm_q4_0_f32_8x16_avx512", "avx512", kQ4MaxMr, 16, gemm_q4_0_f32_8x16_avx512,
     Avx512Supported, nullptr, nullptr},
    {"gemm_q4_0_f32_8x8_avx2", "avx2", kQ4MaxMr, 8, gemm_q4_0_f32_8x8_avx2, Avx2Supported,
     nullptr, nullptr},
    {"gemm_q4_0_f32_8x8_scalar", "portable", kQ4MaxMr, 8, gemm_q4_0_f32_8x8_scalar, Always,
     nullptr, nullptr},
};

const Q4GemmKernel kQ4_KKernels[] = {
    {"gemm_q4_k_f32_8x16_avx512", "avx512", kQ4MaxMr, 16, gemm_q4_k_f32_8x16_avx512,
     Avx512Supported, nullptr, nullptr},
    {"gemm_q4_k_f32_8x8_scalar", "portable", kQ4MaxMr, 8, gemm_q4_k_f32_8x8_scalar, Always,
     nullptr, nullptr},
};

const Q4GemmKernel* Find(std::span<const Q4GemmKernel> table, std::string_view name) {
  for (const auto& k : table)
    if (name == k.name) return &k;
  return nullptr;
}

const Q4GemmKernel& Choose(std::span<const Q4GemmKernel> table, const char* env_name) {
  return ChooseKernelRow(table, env_name);
}

}  // namespace

std::span<const Q4GemmKernel> Q4_0GemmKernels() { return kQ4_0Kernels; }
std::span<const Q4GemmKernel> Q4_KGemmKernels() { return kQ4_KKernels; }

const Q4GemmKernel* FindQ4_0GemmKernel(std::string_view name) { return Find(kQ4_0Kernels, name); }
const Q4GemmKernel* FindQ4_KGemmKernel(std::string_view name) { return Find(kQ4_KKernels, name); }

const Q4GemmKernel& DefaultQ4_0GemmKernel() {
  static const Q4GemmKernel& k = Choose(kQ4_0Kernels, "VT_Q4_GEMM_KERNEL");
  return k;
}
const Q4GemmKernel& DefaultQ4_KGemmKernel() {
  static const Q4GemmKernel& k = Choose(kQ4_KKernels, "VT_Q4K_GEMM_KERNEL");
  return k;
}

const Q4GemmKernel& PortableQ4_0GemmKernel() { return kQ4_0Kernels[std::size(kQ4_0Kernels) - 1]; }
const Q4GemmKernel& PortableQ4_KGemmKernel() { return kQ4_KKernels[std::size(kQ4_KKernels) - 1]; }

}  // namespace vt::kernels
