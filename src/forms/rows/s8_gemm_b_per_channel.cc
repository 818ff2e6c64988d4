// Row vt.s8_per_channel_gemm_b_panels (compact profile): a Gemm weight as int8 per output
// channel (symmetric, scale = max|w| / 127 per column n), stored as int8 column panels of the
// f32 kernel's NR followed by the field "scales" (f32, one per padded column); the GEMM
// dequantizes it per K block into f32 panels as it runs. Lossy.
#include <algorithm>
#include <cmath>

#include "forms/kernel_rows.h"
#include "forms/rows/row_util.h"
#include "kernels/int8/s8_per_channel_pack.h"
#include "vtensor/layout/layout_presets.h"

namespace vt::rows {

extern const FormRow kS8GemmBPerChannel;  // listed in src/forms/form_table.cc

namespace {

constexpr FormType kTypes[] = {{"vt.s8_per_channel_gemm_b_panels", 1}};

const char* UseRejection(WeightUse u) {
  return u == WeightUse::kMatMulB ? "MatMul weights take the int4 form (Gemm weights take this one)"
                                  : "convolution filters keep f32 (no int8 filter form yet)";
}

std::string Describe(const WeightRequest& r) {
  const kernels::F32GemmKernel* row = FirstF32GemmRow(r.isa);
  return std::string("int8 per output channel, column panels for ") + (row ? row->name : "?");
}

void Build(const WeightRequest& r, WeightFormCandidate* c) {
  const kernels::F32GemmKernel* row = FirstF32GemmRow(r.isa);
  if (r.shape.size() != 2) {
    c->rejected = "weight " + Dims(r.shape) + " is not a matrix";
    return;
  }
  if (row == nullptr) {
    c->rejected = NoKernel("f32 GEMM microkernel", r.isa);
    return;
  }
  const bool trans = GetWeightUseTraits(r.use.use).b_trans;
  const int64_t n = trans ? r.shape[0] : r.shape[1];
  const int64_t nr = static_cast<int64_t>(row->nr);
  auto l = GemmWeightPanels(r.shape, trans, nr, Encoding::kI8);
  if (!l.ok()) return RejectLayout(l.status(), c);
  WeightForm f = MakeForm(kS8GemmBPerChannel, kTypes[0], std::move(*l), r.isa, nr, row->name);
  f.params = GemmBParams{trans};
  f.fields.push_back({"scales", Encoding::kF32, (n + nr - 1) / nr * nr,
                      (f.layout.StorageBytes() + 63) / 64 * 64});
  c->description += " (NR=" + std::to_string(nr) + ")";
  c->form = std::move(f);
}

Expected<PackedWeight> Pack(const Tensor& weight, const WeightForm& form) {
  VT_RETURN_IF_ERROR(CheckF32Weight(weight, form));
  const auto* p = std::get_if<GemmBParams>(&form.params);
  const FormField* scales_field = form.field("scales");
  if (p == nullptr || scales_field == nullptr)
    return Internal("form " + form.type_name + " carries no GEMM B parameters or scales field");
  const Tensor w = weight.Contiguous();
  const float* src = w.data<float>();
  const Shape& s = weight.shape();
  const bool trans = p->b_trans;
  const size_t panel = static_cast<size_t>(form.panel);
  const size_t K = static_cast<size_t>(trans ? s[1] : s[0]),
               N = static_cast<size_t>(trans ? s[0] : s[1]);
  const size_t npad = (N + panel - 1) / panel * panel;
  PackedWeight out = AllocPacked(static_cast<size_t>(form.bytes()));
  if (static_cast<int64_t>(npad * K) != form.layout.StorageBytes() ||
      static_cast<int64_t>(npad * sizeof(float)) != scales_field->bytes())
    return PanelBytesMismatch(form, s, form.layout.StorageBytes(), static_cast<int64_t>(npad * K));
  kernels::QuantizeF32ToS8PerChannelPanels(
      panel, K, N, src, trans, reinterpret_cast<int8_t*>(const_cast<uint8_t*>(out.data)),
      reinterpret_cast<float*>(const_cast<uint8_t*>(out.data) + scales_field->offset));
  return out;
}

std::vector<WeightRequest> Samples() {
  const DType f32 = DType::kFloat32;
  const WeightProfile compact = WeightProfile::kCompact;
  return {{f32, {37, 45}, {WeightUse::kGemmB}, IsaLevel::kBaseline, compact},
          {f32, {45, 37}, {WeightUse::kGemmBTrans}, IsaLevel::kBaseline, compact},
          {f32, {1, 1}, {WeightUse::kGemmB}, IsaLevel::kBaseline, compact},
          {f32, {257, 33}, {WeightUse::kGemmBTrans}, IsaLevel::kBaseline, compact}};
}

}  // namespace

constinit const FormRow kS8GemmBPerChannel = {
    WeightFormKind::kS8GemmBPerChannel,
    "s8_gemm_b_per_channel",
    kTypes,
    /*lossless=*/false,
    UseBit(WeightUse::kMatMulB) | UseBit(WeightUse::kGemmB) | UseBit(WeightUse::kGemmBTrans) |
        UseBit(WeightUse::kConvFilter),
    UseBit(WeightUse::kGemmB) | UseBit(WeightUse::kGemmBTrans),
    /*f32_source=*/true,
    UseRejection,
    Describe,
    Build,
    Pack,
    PackAndCompare,
    LayoutAndFieldsStructType,
    Samples,
    /*source_in_place=*/false,
};

}  // namespace vt::rows
