// Dynamic dims in the StableHLO export (docs/export.md, "Dynamic dims"; internal to
// src/export). Shape specialization (passes/static_shapes.h) needs every input dim; a dim the
// user leaves unbound is instead specialized twice, with two different probe extents, and every
// value's dims are compared: a dim equal in both runs is static, one that differs is dynamic.
// Dynamic dims with the same pair of probe extents are the same dim (a dim read from input
// 'x' dim 0 everywhere it flows; a product such as batch x seq after a reshape gets its own
// index). Constants folded from a dynamic dim (Shape -> Gather -> Concat feeding a Reshape)
// differ between the runs: they are run-time values, which no converter may read as constants.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"
#include "vtensor/passes/static_shapes.h"

namespace vt::hlo {

// TensorSpec dims of dynamic dim k are named kDynamicDimParam + k after the specialization.
inline constexpr char kDynamicDimParam[] = "vt.dyn.";

struct DynamicDims {
  std::vector<std::string> names;           // by dynamic dim index, for messages
  std::set<std::string> run_time_values;    // initializers computed from dynamic dims
};

// Whether a graph input of `model` has a dim that is neither known nor bound by `opts`.
bool HasUnboundInputDims(const Model& model, const StaticShapeOptions& opts);

// Specializes `model` with its unbound input dims left dynamic (see above): afterwards every
// value has a tensor type whose dims are known or named kDynamicDimParam + k. Errors:
// InvalidArgument for an input of unknown rank; Unimplemented for more than 8 dynamic input dims
// or a graph with subgraphs; SpecializeShapes' errors (with the probe extents named); Internal
// when the two runs disagree on a value's rank.
Expected<DynamicDims> SpecializeDynamicDims(Model& model, const StaticShapeOptions& opts);

}  // namespace vt::hlo
