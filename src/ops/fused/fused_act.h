// Activations of the fused operators (graph/fused_ops.h: Dense, Activation) on the GELU kernel
// family (kernels/activation/gelu_ukernel.h), the rows com.microsoft Gelu / FastGelu /
// QuickGelu and ONNX Gelu-20 run: one kernel family for every GELU and SiLU in a session.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernels/activation/gelu_table.h"

namespace vt::ops {

struct FusedActivation {
  bool none = true;  // no activation
  kernels::GeluKind kind = kernels::GeluKind::kErf;
  float alpha = 1.0f;  // kSigmoid: 1 is SiLU
};

// kActivationAttr's names: "" (none), "Gelu" (erf form), "GeluTanh", "Silu"; nullopt for others.
std::optional<FusedActivation> FusedActivationFromName(const std::string& name);

// y = act(x) * mul over n contiguous f32 elements (mul optional; y may be x or mul), on `row`,
// split over `threads` in chunks, under flush-to-zero. Precondition: !act.none.
void ApplyActivation(const kernels::GeluKernel& row, const FusedActivation& act, const float* x,
                     const float* mul, float* y, int64_t n, int threads);

}  // namespace vt::ops
