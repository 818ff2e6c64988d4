#include "kernels/nbits/nbits_gemm_table.h"

#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {
namespace {

// Every row (tests and benchmark): the q8 rows first, then the f32 rows, each fastest first.
constexpr size_t kNumQ8 = 3;
const NBitsGemmKernel kAll[] = {
    {"gemm_nbits4_q8_8x16_avx512vnni", "avx512vnni", kNBitsMaxMr, nullptr, CpuHasAvx512Vnni,
     gemm_nbits4_q8_8x16_avx512vnni, nbits4_unpack_q8_avx512vnni,
     gemm_nbits4u_q8_8x16_avx512vnni, nbits_quantize_q8_avx512},
    {"gemm_nbits4_q8_8x16_avx2", "avx2", kNBitsMaxMr, nullptr, CpuHasAvx2,
     gemm_nbits4_q8_8x16_avx2, nullptr, nullptr, nbits_quantize_q8_scalar},
    {"gemm_nbits4_q8_8x16_scalar", "portable", kNBitsMaxMr, nullptr, AlwaysSupported,
     NBitsQ8GemmReference, nbits4_unpack_q8_scalar, gemm_nbits4u_q8_8x16_scalar,
     nbits_quantize_q8_scalar},
    {"gemm_nbits4_f32_8x16_avx512", "avx512", kNBitsMaxMr, gemm_nbits4_f32_8x16_avx512,
     CpuHasAvx512},
    {"gemm_nbits4_f32_8x16_avx2", "avx2", kNBitsMaxMr, gemm_nbits4_f32_8x16_avx2, CpuHasAvx2},
    {"gemm_nbits4_f32_8x16_scalar", "portable", kNBitsMaxMr, gemm_nbits4_f32_8x16_scalar,
     AlwaysSupported},
};
const std::span<const NBitsGemmKernel> kQ8Kernels = std::span(kAll).first(kNumQ8);
const std::span<const NBitsGemmKernel> kF32Kernels = std::span(kAll).subspan(kNumQ8);

}  // namespace

std::span<const NBitsGemmKernel> NBitsGemmKernels() { return kAll; }

const NBitsGemmKernel* FindNBitsGemmKernel(std::string_view name) {
  for (const auto& k : kAll)
    if (name == k.name) return &k;
  return nullptr;
}

const NBitsGemmKernel& DefaultNBitsGemmKernel() {
  static const NBitsGemmKernel& k =
      ChooseKernelRow(kF32Kernels, "VT_NBITS_GEMM_KERNEL");
  return k;
}

const NBitsGemmKernel& DefaultNBitsQ8GemmKernel() {
  static const NBitsGemmKernel& k =
      ChooseKernelRow(kQ8Kernels, "VT_NBITS_Q8_GEMM_KERNEL");
  return k;
}

const NBitsGemmKernel& NBitsGemmKernelForIsa(std::string_view isa, bool q8) {
  // The session's ISA level caps the row: the default row when it belongs to that level or
  // below, else the best supported row of the level, else the portable row.
  const NBitsGemmKernel& def = q8 ? DefaultNBitsQ8GemmKernel() : DefaultNBitsGemmKernel();
  auto level = [](std::string_view i) {
    return i == "avx512vnni" || i == "avx512" ? 2 : i == "avx2" ? 1 : 0;
  };
  if (level(def.isa) <= level(isa)) return def;
  for (const auto& k : q8 ? kQ8Kernels : kF32Kernels)
    if (level(k.isa) <= level(isa) && k.supported()) return k;
  return q8 ? PortableNBitsQ8GemmKernel() : PortableNBitsGemmKernel();
}

const NBitsGemmKernel& PortableNBitsGemmKernel() { return kF32Kernels.back(); }
const NBitsGemmKernel& PortableNBitsQ8GemmKernel() { return kQ8Kernels.back(); }

}  // namespace vt::kernels
