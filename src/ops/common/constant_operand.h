// Finding operands whose value is fixed when a session is created, so that kernel factories
// can prepack them (docs/design.md §3.5). Exporters store weights either as initializers or as outputs
// of Constant nodes (PaddleOCR's paddle2onnx models have no initializers at all).
#pragma once

#include <string>

#include "vtensor/exec/kernel.h"

namespace vt::ops {

// The constant tensor behind value `name` as seen from the node being prepared: a
// non-overridable initializer, or the `value` attribute of a Constant node of this graph or an
// enclosing one. Null when the value is computed at run time (or `name` is empty).
const Tensor* FindConstantOperand(const KernelInit& init, const std::string& name);

// True when the run-time tensor `t` is the very tensor found by FindConstantOperand (same
// bytes, same layout), so a prepacked form of it may be used.
bool IsSameConstant(const Tensor& t, const Tensor& constant);

}  // namespace vt::ops
