// The kernel rows an operator uses (GEMM, row normalization, GELU, attention, conv activation):
// chosen when its node is prepared, capped at the session's ISA level (--arch) like every
// other kernel choice.
#pragma once

#include "kernels/activation/gelu_table.h"
#include "kernels/attention/attention_table.h"
#include "kernels/conv/f32_conv_act.h"
#include "kernels/cpu/kernel_select.h"
#include "kernels/gemm/f32_gemm_table.h"
#include "kernels/norm/layernorm_table.h"
#include "vtensor/exec/kernel.h"
#include "vtensor/forms/weight_provider.h"

namespace vt::ops {

inline const char* KernelIsaName(const KernelInit& init) {
  const IsaLevel isa = init.weights().isa();
  return isa == IsaLevel::kAvx512 ? "avx512" : isa == IsaLevel::kAvx2 ? "avx2" : "portable";
}

inline const kernels::LayerNormKernel& LayerNormRowFor(const KernelInit& init) {
  return kernels::LayerNormKernelForIsa(KernelIsaName(init));
}

inline const kernels::GeluKernel& GeluRowFor(const KernelInit& init) {
  return kernels::GeluKernelForIsa(KernelIsaName(init));
}

// The f32 GEMM row for an operator that packs its own A or B panels at preparation: the
// process's default row (kernels::DefaultF32GemmKernel, which VT_F32_GEMM_KERNEL may choose)
// when its level is at most the session's, else the first supported row of the session's level.
inline const kernels::F32GemmKernel& F32GemmRowFor(const KernelInit& init) {
  return kernels::ChooseKernelRowForIsa(kernels::F32GemmKernels(), KernelIsaName(init),
                                        "VT_F32_GEMM_KERNEL");
}

// The f32 GEMM rows for GEMMs whose B operand is not prepacked (two computed operands, or a
// constant read as it is), chosen per call from the GEMM's rows m and columns n: the process's
// rules (kernels::F32GemmKernelForUnpackedB, F32GemmKernelForM; VT_F32_GEMM_KERNEL applies)
// when the default row's level is at most the session's, else the same rules over the first
// row of the session's level (F32GemmRowFor).
class UnpackedGemmRows {
 public:
  explicit UnpackedGemmRows(const KernelInit& init) {
    const kernels::F32GemmKernel& row = F32GemmRowFor(init);
    if (&row != &kernels::DefaultF32GemmKernel()) base_ = &row;
  }
  // For a B read in place or packed per call (its panel width is free).
  const kernels::F32GemmKernel& ForB(size_t m, size_t n) const {
    return base_ != nullptr ? kernels::F32GemmRowForUnpackedB(*base_, m, n)
                            : kernels::F32GemmKernelForUnpackedB(m, n);
  }
  // For an A packed per call or at preparation with the returned row's MR.
  const kernels::F32GemmKernel& ForM(size_t m) const {
    return base_ != nullptr ? kernels::F32GemmRowForM(*base_, m) : kernels::F32GemmKernelForM(m);
  }

 private:
  const kernels::F32GemmKernel* base_ = nullptr;  // null: the process's default is within the level
};

// The attention kernel row (kernels/attention/attention_table.h) of every attention operator.
inline const kernels::AttentionKernel& AttentionRowFor(const KernelInit& init) {
  return kernels::AttentionKernelForIsa(KernelIsaName(init));
}

// The fused activation row of Conv and ConvTranspose epilogues (ops/nn/conv_epilogue.h).
inline kernels::F32ConvActFn F32ConvActRowFor(const KernelInit& init) {
  return kernels::F32ConvActKernelForIsa(KernelIsaName(init)).fn;
}

}  // namespace vt::ops
