// Row vt.f32_source_in_place: a GEMM B operand (MatMul B, Gemm B with or without transB) in its
// source layout, row-major [K, N] or [N, K], read in place by the small-M kernel of the
// device's ISA (kernels/gemm/f32_gemv.h) when the GEMM's rows M, known from static shapes
// (WeightUseInfo::rows), are few. Such a GEMM reads each weight byte once, and the kernel reads
// the source as fast as the packed panels, so nothing is packed at load, nothing is cached or
// written by `vtensor compile`, and the file's pages are shared between processes
// (docs/weight-forms.md, "Source layout, read in place"). Unknown or larger M keeps the packed
// panels (the next row), which serve every M.
#include <algorithm>
#include <cstring>

#include "forms/kernel_rows.h"
#include "forms/rows/row_util.h"

namespace vt::rows {

extern const FormRow kF32SourceInPlace;  // listed in src/forms/form_table.cc

namespace {

constexpr FormType kTypes[] = {{"vt.f32_source_in_place", 1}};

// The most rows read in place: up to here the in-place rows ran at 0.8-1.15x the speed of the
// packed panels (K = N = 4096, one thread, docs/benchmarks.md); at 8 rows at 0.55-0.85x, where
// the packed GEMM's register tiles pull ahead.
constexpr int64_t kMaxRows = 4;
// The smallest weight read in place. A smaller one stays in the caches from one run to the
// next, so a GEMM over it is not bound by streaming it from memory, and its pack at load costs
// well under a millisecond: the packed panels keep it.
constexpr int64_t kMinBytes = int64_t{1} << 20;

std::string Describe(const WeightRequest& r) {
  const kernels::F32GemvKernel* row = F32GemvRow(r.isa, GetWeightUseTraits(r.use.use).b_trans);
  return std::string("f32 source layout read in place by ") + (row ? row->name : "?");
}

void Build(const WeightRequest& r, WeightFormCandidate* c) {
  const bool trans = GetWeightUseTraits(r.use.use).b_trans;
  const kernels::F32GemvKernel* row = F32GemvRow(r.isa, trans);
  if (r.shape.size() != 2) {
    c->rejected = "weight " + Dims(r.shape) + " is not a matrix";
    return;
  }
  if (row == nullptr) {
    c->rejected = NoKernel("small-M f32 GEMM kernel", r.isa);
    return;
  }
  const int64_t bytes = NumElements(r.shape) * static_cast<int64_t>(sizeof(float));
  if (bytes < kMinBytes) {
    c->rejected = "weight of " + std::to_string(bytes) + " bytes stays in cache (read in place from " +
                  std::to_string(kMinBytes >> 20) + " MiB on)";
    return;
  }
  const int64_t most = std::min<int64_t>(kMaxRows, static_cast<int64_t>(row->max_m));
  if (r.use.rows <= 0) {
    c->rejected = "the GEMM's rows M are not known from static shapes (packed panels serve any M)";
    return;
  }
  if (r.use.rows > most) {
    c->rejected = "M = " + std::to_string(r.use.rows) + " rows, above " + std::to_string(most) +
                  " packed panels are faster";
    return;
  }
  WeightForm f = MakeForm(kF32SourceInPlace, kTypes[0], Layout::Contiguous(r.shape, Encoding::kF32),
                          r.isa, static_cast<int64_t>(row->max_m), row->name);
  f.params = GemmBParams{trans};
  c->description += " (M = " + std::to_string(r.use.rows) + ")";
  c->form = std::move(f);
}

// Lends the source bytes (a contiguous copy only for a strided view).
Expected<PackedWeight> Pack(const Tensor& weight, const WeightForm& form) {
  VT_RETURN_IF_ERROR(CheckF32Weight(weight, form));
  const Tensor w = weight.is_contiguous() ? weight : weight.Contiguous();
  PackedWeight out;
  out.data = static_cast<const uint8_t*>(w.raw_data());
  out.size = static_cast<size_t>(w.nbytes());
  if (out.size != static_cast<size_t>(form.bytes()))
    return PanelBytesMismatch(form, weight.shape(), form.bytes(), static_cast<int64_t>(out.size),
                              "the source");
  out.keep_alive = w.storage();
  return out;
}

Expected<bool> Compare(const Tensor& weight, const WeightForm& form, const uint8_t* payload,
                       size_t size) {
  VT_ASSIGN_OR_RETURN(PackedWeight p, Pack(weight, form));
  return p.size == size && std::memcmp(p.data, payload, size) == 0;
}

std::vector<WeightRequest> Samples() {
  const DType f32 = DType::kFloat32;
  return {{f32, {1024, 257}, {.use = WeightUse::kMatMulB, .rows = 1}},
          {f32, {1, 262144}, {.use = WeightUse::kMatMulB, .rows = kMaxRows}},
          {f32, {257, 1031}, {.use = WeightUse::kGemmB, .rows = 3}},
          {f32, {1031, 257}, {.use = WeightUse::kGemmBTrans, .rows = 2}}};
}

}  // namespace

constinit const FormRow kF32SourceInPlace = {
    WeightFormKind::kF32SourceInPlace,
    "f32_source_in_place",
    kTypes,
    /*lossless=*/true,
    UseBit(WeightUse::kMatMulB) | UseBit(WeightUse::kGemmB) | UseBit(WeightUse::kGemmBTrans),
    UseBit(WeightUse::kMatMulB) | UseBit(WeightUse::kGemmB) | UseBit(WeightUse::kGemmBTrans),
    /*f32_source=*/true,
    /*use_rejection=*/nullptr,
    Describe,
    Build,
    Pack,
    Compare,
    LayoutAndFieldsStructType,
    Samples,
    /*source_in_place=*/true,
};

}  // namespace vt::rows
