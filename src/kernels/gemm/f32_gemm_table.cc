#include "kernels/gemm/f32_gemm_table.h"

#include "kernels/cpu/kernel_select.h"

#include <cstdlib>
#include <string>

namespace vt::kernels {
namespace {

constexpr auto Avx512Supported = CpuHasAvx512;
constexpr auto Avx2Supported = CpuHasAvx2;
constexpr auto Always = AlwaysSupported;
// Panels per call of the narrow rows: up to 8 x NC chains (8 of one column), enough for two FMA
// pipes of 4 cycles' latency; more would only add registers.
constexpr size_t kNarrowPanels = 8;

const F32GemmKernel kKernels[] = {
    {"f32_gemm_8x32_avx512", 8, 32, "avx512", f32_gemm_8x32_avx512, Avx512Supported, false},
    {"f32_gemm_12x32_avx512", 12, 32, "avx512", f32_gemm_12x32_avx512, Avx512Supported, false},
    {"f32_gemm_14x32_avx512", 14, 32, "avx512", f32_gemm_14x32_avx512, Avx512Supported, false},
    {"f32_gemm_1x32_avx512", 1, 32, "avx512", f32_gemm_1x32_avx512, Avx512Supported, false},
    {"f32_gemm_2x32_avx512", 2, 32, "avx512", f32_gemm_2x32_avx512, Avx512Supported, false},
    {"f32_gemm_4x32_avx512", 4, 32, "avx512", f32_gemm_4x32_avx512, Avx512Supported, false},
    {"f32_gemm_6x64_avx512", 6, 64, "avx512", f32_gemm_6x64_avx512, Avx512Supported, true, true},
    {"f32_gemm_8x48_avx512", 8, 48, "avx512", f32_gemm_8x48_avx512, Avx512Supported, false},
    {"f32_gemm_8x4_avx512", 8, 4, "avx512", f32_gemm_8x4_avx512, Avx512Supported, false,
     false, F32GemmProducts::kFused, kNarrowPanels},
    {"f32_gemm_12x4_avx512", 12, 4, "avx512", f32_gemm_12x4_avx512, Avx512Supported, false,
     false, F32GemmProducts::kFused, kNarrowPanels},
    {"f32_gemm_14x4_avx512", 14, 4, "avx512", f32_gemm_14x4_avx512, Avx512Supported, false,
     false, F32GemmProducts::kFused, kNarrowPanels},
    {"f32_gemm_6x16_avx2", 6, 16, "avx2", f32_gemm_6x16_avx2, Avx2Supported, false},
    {"f32_gemm_4x16_scalar", 4, 16, "portable", f32_gemm_4x16_scalar, Always, false, false,
     F32GemmProducts::kRounded},
};

const F32GemmKernel& Choose() {
  return ChooseKernelRow(std::span<const F32GemmKernel>(kKernels), "VT_F32_GEMM_KERNEL");
}

}  // namespace

std::span<const F32GemmKernel> F32GemmKernels() { return kKernels; }

const F32GemmKernel* FindF32GemmKernel(std::string_view name) {
  for (const auto& k : kKernels)
    if (name == k.name) return &k;
  return nullptr;
}

const F32GemmKernel& DefaultF32GemmKernel() {
  static const F32GemmKernel& k = Choose();
  return k;
}

const F32GemmKernel& F32GemmRowForM(const F32GemmKernel& base, size_t m) {
  const F32GemmKernel* best = &base;
  auto padded = [&](const F32GemmKernel& k) { return (m + k.mr - 1) / k.mr * k.mr; };
  for (const auto& k : kKernels) {
    if (std::string_view(k.isa) != base.isa || k.nr != base.nr) continue;
    // Rows shorter than the base are decode rows: only for GEMMs that fit in one tile.
    if (k.mr < base.mr && m > k.mr) continue;
    if (padded(k) < padded(*best) || (padded(k) == padded(*best) && k.mr > best->mr)) best = &k;
  }
  return *best;
}

const F32GemmKernel& F32GemmKernelForM(size_t m) {
  const F32GemmKernel& def = DefaultF32GemmKernel();
  if (const char* env = std::getenv("VT_F32_GEMM_KERNEL"); env != nullptr && FindF32GemmKernel(env))
    return def;
  return F32GemmRowForM(def, m);
}

const F32GemmKernel& F32GemmRowForUnpackedB(const F32GemmKernel& base, size_t m, size_t n) {
  const F32GemmKernel& by_m = F32GemmRowForM(base, m);
  const F32GemmKernel* wide = nullptr;
  for (const auto& k : kKernels)
    if (std::string_view(k.isa) == base.isa && k.supported() && k.mr >= 4 &&
        (wide == nullptr || k.nr > wide->nr))
      wide = &k;
  if (wide == nullptr || wide->nr <= by_m.nr || m < 4 * wide->mr || n < 2 * wide->nr) return by_m;
  return *wide;
}

const F32GemmKernel& F32GemmKernelForUnpackedB(size_t m, size_t n) {
  if (const char* env = std::getenv("VT_F32_GEMM_KERNEL"); env != nullptr && FindF32GemmKernel(env))
    return F32GemmKernelForM(m);
  return F32GemmRowForUnpackedB(DefaultF32GemmKernel(), m, n);
}

const F32GemmKernel& F32GemmRowForPanels(const F32GemmKernel& base, size_t m, size_t n) {
  const F32GemmKernel& by_m = F32GemmRowForM(base, m);
  auto padded = [&](const F32GemmKernel& k) { return (m + k.mr - 1) / k.mr * k.mr; };
  for (const auto& k : kKernels)
    if (k.split_b && std::string_view(k.isa) == base.isa && k.nr == 2 * base.nr &&
        m >= 4 * k.mr && n >= 2 * k.nr && 20 * padded(k) <= 21 * padded(by_m))
      return k;
  return by_m;
}

const F32GemmKernel& F32GemmKernelForPanels(size_t m, size_t n) {
  if (const char* env = std::getenv("VT_F32_GEMM_KERNEL"); env != nullptr && FindF32GemmKernel(env))
    return DefaultF32GemmKernel();
  const F32GemmKernel& k = F32GemmRowForPanels(DefaultF32GemmKernel(), m, n);
  return k.supported() ? k : F32GemmKernelForM(m);
}

const F32GemmKernel* F32GemmNarrowKernel(const F32GemmKernel& wide) {
  if (const char* env = std::getenv("VT_F32_GEMM_KERNEL"); env != nullptr && FindF32GemmKernel(env))
    return nullptr;
  for (const auto& k : kKernels)
    if (std::string_view(k.isa) == wide.isa && k.mr == wide.mr && k.nr <= 4 && k.supported())
      return &k;
  return nullptr;
}

const F32GemmKernel& PortableF32GemmKernel() { return kKernels[std::size(kKernels) - 1]; }

}  // namespace vt::kernels
