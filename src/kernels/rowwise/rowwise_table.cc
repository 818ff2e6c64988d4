#include "kernels/rowwise/rowwise_table.h"

#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {
namespace {

const RowwiseKernel kAll[] = {
    {"rowwise_f32_f32_1x16_avx512", "avx512", 16, norm_rows_f32_f32_1x16_avx512,
     act_rows_f32_f32_1x16_avx512, rotary_rows_f32_f32_1x16_avx512, CpuHasAvx512},
    {"rowwise_f32_f32_1x8_avx2", "avx2", 8, norm_rows_f32_f32_1x8_avx2, act_rows_f32_f32_1x8_avx2,
     rotary_rows_f32_f32_1x8_avx2, CpuHasAvx2},
    {"rowwise_f32_f32_1x1_scalar", "portable", 1, NormRowsReference, ActRowsReference,
     RotaryRowsReference, AlwaysSupported},
};

}  // namespace

std::span<const RowwiseKernel> RowwiseKernels() { return kAll; }

const RowwiseKernel* FindRowwiseKernel(std::string_view name) {
  for (const auto& k : kAll)
    if (name == k.name) return &k;
  return nullptr;
}

const RowwiseKernel& DefaultRowwiseKernel() {
  static const RowwiseKernel& k =
      ChooseKernelRow(std::span<const RowwiseKernel>(kAll), "VT_ROWWISE_KERNEL");
  return k;
}

const RowwiseKernel& PortableRowwiseKernel() { return kAll[std::size(kAll) - 1]; }

}  // namespace vt::kernels
