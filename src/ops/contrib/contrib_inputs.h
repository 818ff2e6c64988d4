// Input checks shared by the com.microsoft operators of this folder (docs/contrib-ops.md). Every
// error is an InvalidArgument naming the node (KernelContext::Error) and the input by its
// schema name and index, e.g. "input 'gamma' (2): expected shape [768], got [767]".
#pragma once

#include <optional>
#include <string>

#include "vtensor/exec/kernel.h"

namespace vt::ops {

// "input 'skip' (1)"
std::string InputLabel(size_t i, const char* name);

// Input i (schema name `name`). Errors: absent, or not a tensor.
Expected<Tensor> RequiredInput(const KernelContext& ctx, size_t i, const char* name);
// Input i when the node gives it, else nullopt. Errors: given but not a tensor.
Expected<std::optional<Tensor>> OptionalInput(const KernelContext& ctx, size_t i, const char* name);

// Errors unless t's element type is `dt` (the type of the operator's first input).
Status ExpectSameDType(const KernelContext& ctx, const Tensor& t, DType dt, size_t i,
                       const char* name);
// Errors unless t is 1-D of length n.
Status ExpectVector(const KernelContext& ctx, const Tensor& t, int64_t n, size_t i,
                    const char* name);
// Errors unless t's element type is float32, float16, bfloat16 or float64 (Unimplemented for
// another numeric type: the operator is defined only on floats).
Status ExpectFloat(const KernelContext& ctx, const Tensor& t, size_t i, const char* name);

}  // namespace vt::ops
