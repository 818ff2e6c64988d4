#include "kernels/attention/attention_table.h"

#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {
namespace {

// The AVX2 row also widens f16 K / V rows with F16C (CpuHasAvx2F16c).

const AttentionKernel kAll[] = {
    {"attention_f32f16kv_f32_8x128_avx512", "avx512", 8, 128, attention_f32f16kv_f32_8x128_avx512,
     CpuHasAvx512},
    {"attention_f32f16kv_f32_8x128_avx2", "avx2", 8, 128, attention_f32f16kv_f32_8x128_avx2,
     CpuHasAvx2F16c},
    {"attention_f32f16kv_f32_1x64_scalar", "portable", 1, kAttentionReferenceBlock,
     AttentionReference, AlwaysSupported},
};

int IsaLevel(std::string_view isa) {
  return isa == "avx512vnni" || isa == "avx512" ? 2 : isa == "avx2" ? 1 : 0;
}

}  // namespace

std::span<const AttentionKernel> AttentionKernels() { return kAll; }

const AttentionKernel* FindAttentionKernel(std::string_view name) {
  for (const auto& k : kAll)
    if (name == k.name) return &k;
  return nullptr;
}

const AttentionKernel& DefaultAttentionKernel() {
  static const AttentionKernel& k =
      ChooseKernelRow(std::span<const AttentionKernel>(kAll), "VT_ATTENTION_KERNEL");
  return k;
}

const AttentionKernel& AttentionKernelForIsa(std::string_view isa) {
  const AttentionKernel& def = DefaultAttentionKernel();
  if (IsaLevel(def.isa) <= IsaLevel(isa)) return def;
  for (const auto& k : kAll)
    if (IsaLevel(k.isa) <= IsaLevel(isa) && k.supported()) return k;
  return PortableAttentionKernel();
}

const AttentionKernel& PortableAttentionKernel() { return kAll[std::size(kAll) - 1]; }

}  // namespace vt::kernels
