#include "forms/kernel_rows.h"

#include <cstring>

#include "kernels/nbits/nbits_gemm_table.h"
#include "vtensor/forms/weight_provider.h"

namespace vt {

const kernels::F32GemmKernel* FirstF32GemmRow(IsaLevel isa) {
  for (const auto& k : kernels::F32GemmKernels())
    if (std::strcmp(k.isa, IsaKernelName(isa)) == 0) return &k;
  return nullptr;
}

const kernels::F32GemmKernel* F32GemmRowForM(IsaLevel isa, int64_t m) {
  const kernels::F32GemmKernel* first = FirstF32GemmRow(isa);
  return first ? &kernels::F32GemmRowForM(*first, static_cast<size_t>(m)) : nullptr;
}

const kernels::F32GemvKernel* F32GemvRow(IsaLevel isa, bool b_trans) {
  return kernels::F32GemvRowForIsa(IsaKernelName(isa), b_trans ? kernels::F32GemvOrder::kNk
                                                                : kernels::F32GemvOrder::kKn);
}

const kernels::Q4GemmKernel* Q4_0GemmRow(IsaLevel isa) {
  const char* want = IsaKernelName(isa);
  const kernels::Q4GemmKernel* plain = nullptr;
  for (const auto& k : kernels::Q4_0GemmKernels())
    if (plain == nullptr && std::strcmp(k.isa, want) == 0) plain = &k;
  if (isa == IsaLevel::kAvx512 && plain != nullptr)
    for (const auto& k : kernels::Q4_0GemmKernels())
      if (std::strcmp(k.isa, "avx512vnni") == 0 && k.rows == plain->rows && k.supported()) return &k;
  if (plain != nullptr) return plain;
  const auto rows = kernels::Q4_0GemmKernels();
  return rows.empty() ? nullptr : &rows.back();
}

const char* NBitsGemmRowName(IsaLevel isa, bool q8) {
  return kernels::NBitsGemmKernelForIsa(IsaKernelName(isa), q8).name;
}

const char* F32GemmRowNameForM(IsaLevel isa, int64_t m) {
  const kernels::F32GemmKernel* k = F32GemmRowForM(isa, m);
  return k ? k->name : kernels::PortableF32GemmKernel().name;
}

const char* F32GemmRowNameForPanels(IsaLevel isa, int64_t m, int64_t n) {
  const kernels::F32GemmKernel* first = FirstF32GemmRow(isa);
  return first ? kernels::F32GemmRowForPanels(*first, static_cast<size_t>(m),
                                              static_cast<size_t>(n)).name
               : kernels::PortableF32GemmKernel().name;
}

}  // namespace vt
