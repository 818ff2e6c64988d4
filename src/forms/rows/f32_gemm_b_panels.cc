// Row vt.f32_gemm_b_panels: f32 NR-wide column panels of a GEMM B operand (MatMul B, Gemm B
// with or without transB), lossless, for the f32 GEMM table's first row of the device's ISA
// (kernels/gemm/f32_gemm_pack.h).
#include "forms/kernel_rows.h"
#include "forms/rows/row_util.h"
#include "kernels/gemm/f32_gemm_pack.h"
#include "vtensor/layout/layout_presets.h"

namespace vt::rows {

extern const FormRow kF32GemmBPanels;  // listed in src/forms/form_table.cc

namespace {

constexpr FormType kTypes[] = {{"vt.f32_gemm_b_panels", 1}};

std::string Describe(const WeightRequest& r) {
  const kernels::F32GemmKernel* row = FirstF32GemmRow(r.isa);
  return std::string("f32 column panels for ") + (row ? row->name : "?");
}

void Build(const WeightRequest& r, WeightFormCandidate* c) {
  const kernels::F32GemmKernel* row = FirstF32GemmRow(r.isa);
  if (r.shape.size() != 2) {
    c->rejected = "weight " + Dims(r.shape) + " is not a matrix (batched weights are packed per "
                  "matrix at load and not cached)";
    return;
  }
  if (row == nullptr) {
    c->rejected = NoKernel("f32 GEMM microkernel", r.isa);
    return;
  }
  const bool trans = GetWeightUseTraits(r.use.use).b_trans;
  auto l = GemmWeightPanels(r.shape, trans, static_cast<int64_t>(row->nr), Encoding::kF32);
  if (!l.ok()) return RejectLayout(l.status(), c);
  WeightForm f = MakeForm(kF32GemmBPanels, kTypes[0], std::move(*l), r.isa, static_cast<int64_t>(row->nr),
                          row->name);
  f.params = GemmBParams{trans};
  c->description += " (NR=" + std::to_string(row->nr) + ")";
  c->form = std::move(f);
}

Expected<PackedWeight> Pack(const Tensor& weight, const WeightForm& form) {
  VT_RETURN_IF_ERROR(CheckF32Weight(weight, form));
  const auto* p = std::get_if<GemmBParams>(&form.params);
  if (p == nullptr) return Internal("form " + form.type_name + " carries no GEMM B parameters");
  const Tensor w = weight.Contiguous();
  const Shape& s = weight.shape();
  const size_t panel = static_cast<size_t>(form.panel);
  const size_t K = static_cast<size_t>(p->b_trans ? s[1] : s[0]),
               N = static_cast<size_t>(p->b_trans ? s[0] : s[1]);
  PackedWeight out = AllocPacked(static_cast<size_t>(form.bytes()));
  const size_t need = kernels::F32PanelsSize(panel, K, N) * sizeof(float);
  if (need != out.size)
    return PanelBytesMismatch(form, s, static_cast<int64_t>(out.size), static_cast<int64_t>(need));
  float* dst = reinterpret_cast<float*>(const_cast<uint8_t*>(out.data));
  if (!p->b_trans) kernels::PackF32GemmKnToPanelsNr(panel, K, N, w.data<float>(), N, dst);
  else kernels::PackF32GemmNkToPanelsNr(panel, K, N, w.data<float>(), K, dst);
  return out;
}

std::vector<WeightRequest> Samples() {
  const DType f32 = DType::kFloat32;
  return {{f32, {7, 33}, {WeightUse::kMatMulB}},    {f32, {1, 1}, {WeightUse::kMatMulB}},
          {f32, {257, 17}, {WeightUse::kMatMulB}},  {f32, {33, 17}, {WeightUse::kGemmB}},
          {f32, {17, 33}, {WeightUse::kGemmBTrans}}, {f32, {40, 40}, {WeightUse::kGemmBTrans}}};
}

}  // namespace

constinit const FormRow kF32GemmBPanels = {
    WeightFormKind::kF32GemmBPanels,
    "f32_gemm_b_panels",
    kTypes,
    /*lossless=*/true,
    UseBit(WeightUse::kMatMulB) | UseBit(WeightUse::kGemmB) | UseBit(WeightUse::kGemmBTrans),
    UseBit(WeightUse::kMatMulB) | UseBit(WeightUse::kGemmB) | UseBit(WeightUse::kGemmBTrans),
    /*f32_source=*/true,
    /*use_rejection=*/nullptr,
    Describe,
    Build,
    Pack,
    LayoutAndFieldsStructType,
    Samples,
};

}  // namespace vt::rows
