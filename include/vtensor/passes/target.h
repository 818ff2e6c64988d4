// Compile targets and their weight-layout preferences (docs/design.md §3.3:
// the layout decision is a pass registered per target).
//
// A target names a consumer of the compiled graph and says which physical layout each kind
// of weight should have for that consumer's kernels. Preferences come from the kernel tables
// (kernels/gemm/f32_gemm_table.h): for the vtensor CPU targets the layout a weight gets is the
// one the runtime's kernels pack it into on that ISA, so an export for `x86_64-avx512` carries
// the very panels the runtime builds on an AVX-512 machine. `iree-llvm-cpu` describes what an
// IREE CPU (llvm-cpu) consumer prefers: data-tiled f32 matmul right-hand sides in 16-wide
// column tiles (mmt4d N0=16, K0=1); it has no preference for convolution filters.
//
// Targets: x86_64-avx512, x86_64-avx2, x86_64-baseline, iree-llvm-cpu, and `native` (resolved
// to the best x86_64-* target this CPU supports).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"
#include "vtensor/layout/layout.h"
#include "vtensor/forms/weight_form.h"

namespace vt {

struct TargetInfo {
  const char* name;          // "x86_64-avx512"
  const char* architecture;  // DeviceProto.architecture of compiled entries it consumes
  const char* gemm_isa;      // kernel-table ISA whose rows decide panel widths ("" none)
  int64_t matmul_panel;      // IREE-style fixed RHS column tile when gemm_isa is "" (0: none)
  bool conv_panels;          // prefers GEMM A panels for convolution filters
  const char* description;
};

// All targets (without the `native` alias), in a fixed order.
std::span<const TargetInfo> Targets();
// Looks a target up by name; "native" resolves to the host's best x86_64-* target.
// Errors: InvalidArgument "unknown target 'T' (known: ...)".
Expected<const TargetInfo*> FindTarget(std::string_view name);

// WeightUse / WeightUseInfo: forms/weight_use.h (the resolver, forms/weight_form.h, decides
// every vtensor form).

// The layout `target` prefers for an f32 weight of `shape` used as `info` says, or nullopt
// when the target keeps the stored row-major form (no preference). The layout has encoding
// f32. Errors: InvalidArgument for a shape that does not fit the use (wrong rank, zero dims).
Expected<std::optional<Layout>> PreferredWeightLayout(const TargetInfo& target, const Shape& shape,
                                                      const WeightUseInfo& info);

// The GEMM column-panel width (NR) the runtime uses for `target` (0 when it has none).
int64_t TargetGemmPanelWidth(const TargetInfo& target);

}  // namespace vt
