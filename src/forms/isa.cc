#include "vtensor/forms/isa.h"

#include <cstring>

#include "kernels/gemm/f32_gemm_table.h"

namespace vt {

namespace {

const IsaInfo kLevels[] = {
    {IsaLevel::kAvx512, "x86_64-avx512", "avx512"},
    {IsaLevel::kAvx2, "x86_64-avx2", "avx2"},
    {IsaLevel::kBaseline, "x86_64-baseline", "portable"},
};

const IsaInfo& Info(IsaLevel isa) {
  for (const auto& l : kLevels)
    if (l.level == isa) return l;
  return kLevels[std::size(kLevels) - 1];
}

}  // namespace

std::span<const IsaInfo> IsaLevels() { return kLevels; }

const char* IsaArchitecture(IsaLevel isa) { return Info(isa).architecture; }

const char* IsaKernelName(IsaLevel isa) { return Info(isa).kernel_isa; }

std::optional<IsaLevel> IsaFromArchitecture(std::string_view name) {
  if (name == "native") return HostIsa();
  for (const auto& l : kLevels)
    if (name == l.architecture) return l.level;
  return std::nullopt;
}

// The level of the f32 GEMM row the default dispatch picked: the kernels decide what this CPU
// runs, the forms follow them.
IsaLevel HostIsa() {
  const std::string_view isa = kernels::DefaultF32GemmKernel().isa;
  for (const auto& l : kLevels)
    if (isa == l.kernel_isa) return l.level;
  return IsaLevel::kBaseline;
}

bool IsaSupported(IsaLevel isa) {
  for (const auto& k : kernels::F32GemmKernels())
    if (std::strcmp(k.isa, IsaKernelName(isa)) == 0 && k.supported()) return true;
  return false;
}

}  // namespace vt
