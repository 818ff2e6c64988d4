// Activation names of the fused operators and their row-wise application.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernels/rowwise/rowwise_ukernel.h"

namespace vt::ops {

// "" -> kNone, "Relu", "Gelu" (erf form), "GeluTanh", "Silu"; nullopt for other names.
std::optional<kernels::RowAct> RowActFromName(const std::string& name);

// y = act(x + bias) * mul over `rows` contiguous rows of `n` (bias [n] and mul optional; y may
// be x), split over threads; f32, under flush-to-zero.
void ApplyActivation(kernels::RowAct act, const float* x, const float* bias, const float* mul,
                     float* y, int64_t rows, int64_t n, int threads);

}  // namespace vt::ops
