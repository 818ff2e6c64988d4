// Row vt.q4_0_gemm_b (compact profile): a MatMul weight B[K, N] as q4_0 blocks of 32 along K
// with error-minimising scales, in the kernel-feed order of the q4_0 table row the device runs
// (kernels/q4/q4_pack.h): lossy, results change by the quantization error.
#include "forms/kernel_rows.h"
#include "forms/rows/row_util.h"
#include "kernels/cpu/parallel_pack.h"
#include "kernels/q4/q4_pack.h"
#include "vtensor/layout/layout_presets.h"

namespace vt::rows {

extern const FormRow kQ4_0GemmB;  // listed in src/forms/form_table.cc

namespace {

constexpr FormType kTypes[] = {{"vt.q4_0_gemm_b", 1}};

const char* UseRejection(WeightUse) {
  return "int4 weights are read by the MatMul kernel only (Gemm and Conv keep f32)";
}

std::string Describe(const WeightRequest& r) {
  const kernels::Q4GemmKernel* row = Q4_0GemmRow(r.isa);
  return std::string("q4_0 blocks of 32 (min-error scales), kernel-feed order for ") +
         (row ? row->name : "?");
}

void Build(const WeightRequest& r, WeightFormCandidate* c) {
  const kernels::Q4GemmKernel* row = Q4_0GemmRow(r.isa);
  if (r.shape.size() != 2) {
    c->rejected = "weight " + Dims(r.shape) + " is not a matrix";
    return;
  }
  if (row == nullptr) {
    c->rejected = NoKernel("q4_0 kernel", r.isa);
    return;
  }
  const int64_t k = r.shape[0], n = r.shape[1], rows = static_cast<int64_t>(row->rows);
  auto nk = BlockQuantizedWeight(n, k, Encoding::kQ4_0, BlockOrder::kInputBlockMajor, rows);
  Expected<Layout> l = nk.ok() ? nk->Transpose({1, 0}) : std::move(nk);
  if (!l.ok()) return RejectLayout(l.status(), c);
  c->description += " (rows=" + std::to_string(rows) + ")";
  c->form = MakeForm(kQ4_0GemmB, kTypes[0], std::move(*l), r.isa, rows, row->name);
}

Expected<PackedWeight> Pack(const Tensor& weight, const WeightForm& form) {
  VT_RETURN_IF_ERROR(CheckF32Weight(weight, form));
  const Tensor w = weight.Contiguous();
  const Shape& s = weight.shape();
  const size_t K = static_cast<size_t>(s[0]), N = static_cast<size_t>(s[1]);
  const size_t panel = static_cast<size_t>(form.panel);
  PackedWeight out = AllocPacked(static_cast<size_t>(form.bytes()));
  const size_t need = kernels::Q4_0PackedBytes(N, K, panel);
  if (need != out.size)
    return PanelBytesMismatch(form, s, static_cast<int64_t>(out.size), static_cast<int64_t>(need),
                              "q4_0 panels");
  kernels::PackF32KnToQ4_0Panels(
      K, N, w.data<float>(), N, panel, kernels::Q4ScaleSearch::kMinError,
      const_cast<uint8_t*>(out.data),
      kernels::ParallelPackThreads(K * N * sizeof(float), (N + panel - 1) / panel));
  return out;
}

std::vector<WeightRequest> Samples() {
  const DType f32 = DType::kFloat32;
  const WeightUseInfo mm{WeightUse::kMatMulB};
  const WeightProfile compact = WeightProfile::kCompact;
  return {{f32, {64, 24}, mm, IsaLevel::kBaseline, compact},
          {f32, {33, 17}, mm, IsaLevel::kBaseline, compact},
          {f32, {1, 1}, mm, IsaLevel::kBaseline, compact},
          {f32, {257, 7}, mm, IsaLevel::kBaseline, compact}};
}

}  // namespace

constinit const FormRow kQ4_0GemmB = {
    WeightFormKind::kQ4_0GemmB,
    "q4_0_gemm_b",
    kTypes,
    /*lossless=*/false,
    UseBit(WeightUse::kMatMulB) | UseBit(WeightUse::kGemmB) | UseBit(WeightUse::kGemmBTrans) |
        UseBit(WeightUse::kConvFilter),
    UseBit(WeightUse::kMatMulB),
    /*f32_source=*/true,
    UseRejection,
    Describe,
    Build,
    Pack,
    /*compare=*/nullptr,  // the min-error scale search packs far slower than a digest
    LayoutAndFieldsStructType,
    Samples,
    /*source_in_place=*/false,
};

}  // namespace vt::rows
