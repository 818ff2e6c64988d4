#include "vtensor/passes/target.h"

#include <string>

#include "kernels/gemm/f32_gemm_table.h"
#include "vtensor/layout/layout_presets.h"

namespace vt {

namespace {

const TargetInfo kTargets[] = {
    {"x86_64-avx512", "x86_64-avx512", "avx512", 0, true,
     "vtensor CPU runtime, AVX-512 f32 GEMM microkernels"},
    {"x86_64-avx2", "x86_64-avx2", "avx2", 0, true, "vtensor CPU runtime, AVX2+FMA microkernels"},
    {"x86_64-baseline", "x86_64-baseline", "portable", 0, true,
     "vtensor CPU runtime, portable microkernels (any x86-64)"},
    {"iree-llvm-cpu", "iree-llvm-cpu", "", 16, false,
     "IREE llvm-cpu: data-tiled f32 matmul RHS in 16-wide column tiles (mmt4d N0=16, K0=1)"},
};

std::string KnownTargets() {
  std::string s;
  for (const auto& t : kTargets) s += std::string(s.empty() ? "" : ", ") + t.name;
  return s + ", native";
}

}  // namespace

std::span<const TargetInfo> Targets() { return kTargets; }

Expected<const TargetInfo*> FindTarget(std::string_view name) {
  if (name == "native") {
    const kernels::F32GemmKernel& k = kernels::DefaultF32GemmKernel();
    for (const auto& t : kTargets)
      if (std::string_view(t.gemm_isa) == k.isa) return &t;
    return &kTargets[2];
  }
  for (const auto& t : kTargets)
    if (name == t.name) return &t;
  return InvalidArgument("unknown target '" + std::string(name) + "' (known: " + KnownTargets() +
                         ")");
}

int64_t TargetGemmPanelWidth(const TargetInfo& target) {
  if (target.gemm_isa[0] == '\0') return target.matmul_panel;
  for (const auto& k : kernels::F32GemmKernels())
    if (std::string_view(k.isa) == target.gemm_isa) return static_cast<int64_t>(k.nr);
  return 0;
}

Expected<std::optional<Layout>> PreferredWeightLayout(const TargetInfo& target, const Shape& shape,
                                                      const WeightUseInfo& info) {
  for (int64_t d : shape)
    if (d <= 0) return InvalidArgument("weight " + ShapeToString(shape) + " has an empty dim");
  const WeightUseTraits& use = GetWeightUseTraits(info.use);
  const bool gemm = use.matrix;
  if (gemm && shape.size() != 2)
    return InvalidArgument("GEMM weight " + ShapeToString(shape) + " is not a matrix");
  if (!gemm && shape.size() < 3)
    return InvalidArgument("convolution filter " + ShapeToString(shape) + " has rank < 3");
  if (target.gemm_isa[0] == '\0') {
    // IREE llvm-cpu: fixed 16-wide RHS column tiles for matmuls, nothing for convolutions.
    if (!gemm || target.matmul_panel <= 0) return std::optional<Layout>();
    VT_ASSIGN_OR_RETURN(Layout l, GemmWeightPanels(shape, use.b_trans, target.matmul_panel));
    return std::optional<Layout>(std::move(l));
  }
  // vtensor CPU targets: exactly the form the runtime's resolver packs on that ISA (one
  // planner for sessions, `vtensor compile` and exports).
  const auto isa = IsaFromArchitecture(target.architecture);
  if (!isa) return std::optional<Layout>();
  auto form = ResolveWeightForm(DType::kFloat32, shape, info, *isa, WeightProfile::kExact);
  if (!form) return std::optional<Layout>();
  return std::optional<Layout>(form->layout);
}

}  // namespace vt
