// Tensor values as text, the way NumPy prints arrays (`vtensor run --print`): nested brackets,
// elements right-aligned to a common width, floats in their shortest round-trip form ("1." for
// whole numbers), and, for tensors of more than 1000 elements, only the first and last 3
// entries of each axis longer than 6 with "..." between.
#pragma once

#include <string>

#include "vtensor/tensor/tensor.h"

namespace vt::cli {

// `all`: never elide (--print-all). Rows wrap at 75 columns as NumPy's do.
std::string FormatTensor(const Tensor& tensor, bool all);

}  // namespace vt::cli
