// Row vt.f32_gemm_b_panels: f32 NR-wide column panels of a GEMM B operand (MatMul B, Gemm B
// with or without transB), lossless, for the f32 GEMM table's first row of the device's ISA
// (kernels/gemm/f32_gemm_pack.h).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "forms/kernel_rows.h"
#include "forms/rows/row_util.h"
#include "kernels/cpu/parallel_pack.h"
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

// Floats of scratch per comparison step: small enough to stay in L2, so comparing reads the
// source and the payload once each and writes no fresh pages (the dearest part of a pack on a
// VM, docs/compiled-tensors.md "Packing at load").
constexpr size_t kCompareScratchFloats = size_t{64} << 10;

// Packs piece by piece into a reused scratch buffer with the pack's own SIMD copy, each piece
// compared with the payload bytes it must equal (a fused compare without the copy measured
// slower), reading the source in its own order: [K, N] sources kc rows at a time across every
// panel (panel p's rows [k0, k0 + kc) are contiguous in the payload), [N, K] sources a group of
// whole panels at a time. The pieces are split over the session's threads as a pack's panels
// are (kernels/cpu/parallel_pack.h), each thread with its own scratch.
Expected<bool> Compare(const Tensor& weight, const WeightForm& form, const uint8_t* payload, size_t size) {
  VT_RETURN_IF_ERROR(CheckF32Weight(weight, form));
  const auto* p = std::get_if<GemmBParams>(&form.params);
  if (p == nullptr) return Internal("form " + form.type_name + " carries no GEMM B parameters");
  const Tensor w = weight.Contiguous();
  const Shape& s = weight.shape();
  const size_t nr = static_cast<size_t>(form.panel);
  const size_t K = static_cast<size_t>(p->b_trans ? s[1] : s[0]),
               N = static_cast<size_t>(p->b_trans ? s[0] : s[1]);
  if (size != static_cast<size_t>(form.bytes())) return false;
  const size_t need = kernels::F32PanelsSize(nr, K, N) * sizeof(float);
  if (need != size)
    return PanelBytesMismatch(form, s, static_cast<int64_t>(size), static_cast<int64_t>(need));
  if (K == 0 || N == 0) return true;
  const size_t panels = (N + nr - 1) / nr;
  const float* src = w.data<float>();
  const size_t kc = std::max<size_t>(1, kCompareScratchFloats / (panels * nr));  // [K, N]
  const size_t group = std::max<size_t>(1, kCompareScratchFloats / (K * nr));    // [N, K]
  const size_t steps = p->b_trans ? (panels + group - 1) / group : (K + kc - 1) / kc;
  const size_t scratch_floats =
      p->b_trans ? std::min(group, panels) * K * nr : std::min(kc, K) * panels * nr;
  // Step i: true when its piece of the pack equals the payload's.
  auto step = [&](size_t i, float* scratch) {
    if (!p->b_trans) {
      const size_t k0 = i * kc, kb = std::min(kc, K - k0);
      kernels::PackF32Panels(nr, kb, N, src + k0 * N, N, 1, scratch, kb * nr);
      for (size_t q = 0; q < panels; ++q)
        if (std::memcmp(scratch + q * kb * nr, payload + (q * K + k0) * nr * sizeof(float),
                        kb * nr * sizeof(float)) != 0)
          return false;
      return true;
    }
    const size_t q0 = i * group, j0 = q0 * nr, nj = std::min(group * nr, N - j0);
    const size_t floats = (nj + nr - 1) / nr * nr * K;
    kernels::PackF32Panels(nr, K, nj, src + j0 * K, 1, K, scratch, K * nr);
    return std::memcmp(scratch, payload + q0 * K * nr * sizeof(float), floats * sizeof(float)) == 0;
  };
  const int threads = kernels::ParallelPackThreads(size, steps);
  std::atomic<bool> same{true};
#pragma omp parallel num_threads(threads)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num()), nt = static_cast<size_t>(omp_get_num_threads());
    kernels::AlignedFloats scratch(scratch_floats);
    for (size_t i = steps * t / nt; i < steps * (t + 1) / nt && same.load(std::memory_order_relaxed); ++i)
      if (!step(i, scratch.data())) same.store(false, std::memory_order_relaxed);
  }
  return same.load();
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
    Compare,
    LayoutAndFieldsStructType,
    Samples,
    /*source_in_place=*/false,
};

}  // namespace vt::rows
