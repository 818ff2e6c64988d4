// exp() of non-positive arguments for LogSumExp-style reductions and softmax, where the
// argument is x - max(x) <= 0.
#pragma once

#include <cmath>
#include <type_traits>

#include "ops/elementwise/unary_fast_math.h"

namespace vt::ops {

// float32: the vectorisable exp of unary_fast_math.h (a few ulp), returning exactly 0 below its
// clamp at -87 where the true value is below 2^-125 anyway; double: libm. NaN propagates.
template <typename T>
inline T ExpNonPositive(T d) {
  if constexpr (std::is_same_v<T, float>) return d < -87.0f ? 0.0f : fastmath::Exp(d);
  else return std::exp(d);
}

}  // namespace vt::ops
