// Row vt.f32_conv_a_panels: a Conv filter [M, C/group, k...] as f32 GEMM A panels of MR rows
// per group, lossless, for the f32 GEMM row the runtime picks for M/group rows; K ordered
// (channels, taps), or (taps, channels) in tap-major mode (forms/conv_mode.h).
#include <vector>

#include "forms/kernel_rows.h"
#include "forms/rows/row_util.h"
#include "kernels/conv/f32_conv_pack.h"
#include "kernels/gemm/f32_gemm_pack.h"

namespace vt::rows {

extern const FormRow kF32ConvAPanels;  // listed in src/forms/form_table.cc

namespace {

constexpr FormType kTypes[] = {{"vt.f32_conv_a_panels", 1}};

// Conv filter [M, C, k...] as per-group GEMM A panels of `mr` rows; K ordered (c, taps), or
// (taps, c) when tap-major. Groups are consecutive; with several groups `mr` must divide M/g.
Expected<Layout> ConvFilterPanels(const Shape& w, int64_t group, int64_t mr, bool tap_major) {
  const int rank = static_cast<int>(w.size());
  int64_t taps = 1;
  for (int d = 2; d < rank; ++d) taps *= w[static_cast<size_t>(d)];
  const int64_t c = w[1], k = c * taps, mg = w[0] / group;
  LayoutSpec s;
  s.shape = w;
  s.encoding = Encoding::kF32;
  s.padded = w;
  s.padded[0] = group > 1 ? w[0] : (w[0] + mr - 1) / mr * mr;
  if (group > 1 && mg > mr) s.levels.push_back({0, mg, mg * k});
  if (mr > 1) {
    s.levels.push_back({0, mr, k * mr});
    s.levels.push_back({0, 1, 1});
  } else {
    s.levels.push_back({0, 1, k});
  }
  int64_t inner = 1;
  for (int d = rank - 1; d >= 2; --d) {
    s.levels.push_back({d, 1, tap_major ? inner * c * mr : inner * mr});
    inner *= w[static_cast<size_t>(d)];
  }
  s.levels.push_back({1, 1, tap_major ? mr : taps * mr});
  return Layout::Make(s);
}

std::string Describe(const WeightRequest&) { return "f32 filter panels (GEMM A operand)"; }

void Build(const WeightRequest& r, WeightFormCandidate* c) {
  const Shape& shape = r.shape;
  const int64_t group = r.use.group;
  if (shape.size() < 3 || group <= 0 || shape[0] % group != 0) {
    c->rejected = "filter " + Dims(shape) + " does not fit group " + std::to_string(group);
    return;
  }
  if (ConvWinogradApplies(shape, group, r.use.unit_strides_dilations, r.isa)) {
    c->rejected = "Winograd F(4x4, 3x3) runs this filter on a transform made at session "
                  "creation, not a layout (nothing packed or cached)";
    return;
  }
  const ConvWeightMode mode = ChooseConvWeightMode(shape, group, r.use.unit_strides_pads);
  if (mode == ConvWeightMode::kDepthwise) {
    c->rejected = "depthwise filters are read in place by the depthwise kernel (no packed form)";
    return;
  }
  const int64_t mg = shape[0] / group;
  const kernels::F32GemmKernel* row = F32GemmRowForM(r.isa, mg);
  if (row == nullptr) {
    c->rejected = NoKernel("f32 GEMM microkernel", r.isa);
    return;
  }
  const int64_t mr = static_cast<int64_t>(row->mr);
  c->description += std::string(" for ") + row->name + " (MR=" + std::to_string(mr) + ", " +
                    (mode == ConvWeightMode::kTapMajor ? "tap-major" : "channel-major") + ")";
  if (group > 1 && mg % mr != 0) {
    c->rejected = "per-group panels of " + std::to_string(mg) + " rows are padded to MR=" +
                  std::to_string(mr) + " inside each group, which a layout cannot express "
                  "(packed at load, not cached)";
    return;
  }
  auto l = ConvFilterPanels(shape, group, mr, mode == ConvWeightMode::kTapMajor);
  if (!l.ok()) return RejectLayout(l.status(), c);
  WeightForm f = MakeForm(kF32ConvAPanels, kTypes[0], std::move(*l), r.isa, mr, row->name);
  f.params = ConvAParams{mode, group};
  c->form = std::move(f);
}

Expected<PackedWeight> Pack(const Tensor& weight, const WeightForm& form) {
  VT_RETURN_IF_ERROR(CheckF32Weight(weight, form));
  const auto* p = std::get_if<ConvAParams>(&form.params);
  if (p == nullptr) return Internal("form " + form.type_name + " carries no Conv parameters");
  const Tensor w = weight.Contiguous();
  const Shape& s = weight.shape();
  const size_t panel = static_cast<size_t>(form.panel);
  const int64_t group = p->group, mg = s[0] / group, k = w.numel() / s[0], c = s[1];
  const bool tap_major = p->mode == ConvWeightMode::kTapMajor;
  PackedWeight out = AllocPacked(static_cast<size_t>(form.bytes()));
  const size_t per_group =
      kernels::F32PanelsSize(panel, static_cast<size_t>(k), static_cast<size_t>(mg));
  const size_t need = per_group * static_cast<size_t>(group) * sizeof(float);
  if (need != out.size)
    return PanelBytesMismatch(form, s, static_cast<int64_t>(out.size), static_cast<int64_t>(need));
  float* dst = reinterpret_cast<float*>(const_cast<uint8_t*>(out.data));
  for (int64_t g = 0; g < group; ++g) {
    const float* wg = w.data<float>() + g * mg * k;
    float* dg = dst + static_cast<size_t>(g) * per_group;
    if (tap_major)  // (m, c, taps) -> (m, taps, c), straight from the ONNX order
      kernels::PackF32ConvFiltersTapMajorToPanelsMr(panel, static_cast<size_t>(mg),
                                                    static_cast<size_t>(c),
                                                    static_cast<size_t>(k / c), wg, dg);
    else
      kernels::PackF32GemmMkToPanelsMr(panel, static_cast<size_t>(mg), static_cast<size_t>(k), wg,
                                       static_cast<size_t>(k), dg);
  }
  return out;
}

std::vector<WeightRequest> Samples() {
  const DType f32 = DType::kFloat32;
  const WeightUse conv = WeightUse::kConvFilter;
  return {{f32, {16, 3, 3, 3}, {conv, 1, false}},  // packed, channel-major
          {f32, {20, 16, 1, 1}, {conv, 1, true}},  // pointwise
          {f32, {24, 20, 3, 3}, {conv, 1, false}}, // tap-major
          {f32, {48, 4, 3, 3}, {conv, 2, true}},   // grouped: every ISA's MR divides 24
          {f32, {4, 2, 2, 2, 2}, {conv, 1, true}}, // 3-D
          {f32, {7, 5, 3}, {conv, 1, false}},      // 1-D, odd M
          {f32, {33, 17, 1, 1}, {conv, 1, false}}};
}

}  // namespace

constinit const FormRow kF32ConvAPanels = {
    WeightFormKind::kF32ConvAPanels,
    "f32_conv_a_panels",
    kTypes,
    /*lossless=*/true,
    UseBit(WeightUse::kConvFilter),
    UseBit(WeightUse::kConvFilter),
    /*f32_source=*/true,
    /*use_rejection=*/nullptr,
    Describe,
    Build,
    Pack,
    PackAndCompare,
    LayoutAndFieldsStructType,
    Samples,
    /*source_in_place=*/false,
};

}  // namespace vt::rows
