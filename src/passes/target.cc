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

// First row of `isa` in the kernel table: the row the runtime's default dispatch picks on a
// CPU whose best ISA is `isa`.
const kernels::F32GemmKernel* FirstRow(std::string_view isa) {
  for (const auto& k : kernels::F32GemmKernels())
    if (isa == k.isa) return &k;
  return nullptr;
}

// Mirrors kernels::F32GemmKernelForM for a given ISA instead of the host's: among rows of the
// ISA with the default row's NR, the one wasting the fewest padded rows, then the tallest.
const kernels::F32GemmKernel* RowForM(std::string_view isa, int64_t m) {
  const kernels::F32GemmKernel* def = FirstRow(isa);
  if (def == nullptr) return nullptr;
  const kernels::F32GemmKernel* best = def;
  auto padded = [&](const kernels::F32GemmKernel& k) {
    return (static_cast<size_t>(m) + k.mr - 1) / k.mr * k.mr;
  };
  for (const auto& k : kernels::F32GemmKernels()) {
    if (std::string_view(k.isa) != isa || k.nr != def->nr) continue;
    if (padded(k) < padded(*best) || (padded(k) == padded(*best) && k.mr > best->mr)) best = &k;
  }
  return best;
}

// GEMM A panels of `mr` rows over a filter [M, C, k...] read as the matrix [M, K]; the K
// order is (c, taps) row-major, or (taps, c) when `tap_major`.
Expected<Layout> ConvFilterPanels(const Shape& w, int64_t mr, bool tap_major) {
  const int rank = static_cast<int>(w.size());
  int64_t taps = 1;
  for (int d = 2; d < rank; ++d) taps *= w[static_cast<size_t>(d)];
  const int64_t c = w[1], k = c * taps;
  LayoutSpec s;
  s.shape = w;
  s.encoding = Encoding::kF32;
  s.padded = w;
  s.padded[0] = (w[0] + mr - 1) / mr * mr;
  s.levels.push_back({0, mr, k * mr});
  s.levels.push_back({0, 1, 1});
  int64_t inner = 1;  // product of the spatial extents after dim d
  for (int d = rank - 1; d >= 2; --d) {
    const int64_t stride = tap_major ? inner * c * mr : inner * mr;
    s.levels.push_back({d, 1, stride});
    inner *= w[static_cast<size_t>(d)];
  }
  s.levels.push_back({1, 1, tap_major ? mr : taps * mr});
  return Layout::Make(s);
}

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
  const kernels::F32GemmKernel* k = FirstRow(target.gemm_isa);
  return k ? static_cast<int64_t>(k->nr) : 0;
}

Expected<std::optional<Layout>> PreferredWeightLayout(const TargetInfo& target, const Shape& shape,
                                                      const WeightUseInfo& info) {
  for (int64_t d : shape)
    if (d <= 0) return InvalidArgument("weight " + ShapeToString(shape) + " has an empty dim");
  switch (info.use) {
    case WeightUse::kMatMulB:
    case WeightUse::kGemmB:
    case WeightUse::kGemmBTrans: {
      if (shape.size() != 2)
        return InvalidArgument("GEMM weight " + ShapeToString(shape) + " is not a matrix");
      const int64_t nr = TargetGemmPanelWidth(target);
      if (nr <= 0) return std::optional<Layout>();
      const bool trans = info.use == WeightUse::kGemmBTrans;
      const int64_t k = trans ? shape[1] : shape[0], n = trans ? shape[0] : shape[1];
      VT_ASSIGN_OR_RETURN(Layout kn, GemmColumnPanels(k, n, nr, Encoding::kF32));
      if (!trans) return std::optional<Layout>(std::move(kn));
      VT_ASSIGN_OR_RETURN(Layout nk, kn.Transpose({1, 0}));
      return std::optional<Layout>(std::move(nk));
    }
    case WeightUse::kConvFilter: {
      if (shape.size() < 3)
        return InvalidArgument("convolution filter " + ShapeToString(shape) + " has rank < 3");
      if (!target.conv_panels || info.group != 1) return std::optional<Layout>();
      // The runtime's convolution modes (src/ops/conv.cc): depthwise filters are read in
      // place; every other group-1 filter becomes GEMM A panels, tap-major when there are at
      // least 16 input channels and the convolution is not a unit-stride 1x1.
      bool pointwise = info.unit_strides_pads;
      for (size_t d = 2; d < shape.size(); ++d) pointwise = pointwise && shape[d] == 1;
      if (shape[1] == 1 && shape[0] == 1 && shape.size() <= 4) return std::optional<Layout>();
      const kernels::F32GemmKernel* row = RowForM(target.gemm_isa, shape[0]);
      if (row == nullptr) return std::optional<Layout>();
      const bool tap_major = !pointwise && shape.size() <= 4 && shape[1] >= 16;
      VT_ASSIGN_OR_RETURN(Layout l,
                          ConvFilterPanels(shape, static_cast<int64_t>(row->mr), tap_major));
      return std::optional<Layout>(std::move(l));
    }
  }
  return std::optional<Layout>();
}

}  // namespace vt
