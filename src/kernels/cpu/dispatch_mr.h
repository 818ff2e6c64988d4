// Turning a microkernel call's run-time row count into a template argument, so that each tile
// height gets its own fully unrolled instance (the pattern every decode microkernel family
// uses). Header-only: each ISA-specific file instantiates it under its own compile flags.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace vt::kernels {

// Calls f(std::integral_constant<size_t, M>{}) once, with M = min(mr, kMax). mr >= 1.
template <size_t kMax, typename F>
inline void DispatchMr(size_t mr, F&& f) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    (void)((mr == I + 1 || (I + 1 == kMax && mr > kMax)
                ? (f(std::integral_constant<size_t, I + 1>{}), true)
                : false) ||
           ...);
  }(std::make_index_sequence<kMax>{});
}

}  // namespace vt::kernels
