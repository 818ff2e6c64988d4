// Coarse OpenMP loop for the reduction/normalization kernels: splits independent rows across
// the session's threads only when there is enough work to pay for the fork.
#pragma once

#include <cstdint>

namespace vt::ops {

// Calls f(i) for i in [0, n). `work` estimates the total element operations; below ~64K the
// loop stays on the calling thread.
template <typename F>
void ParallelRows(int64_t n, int64_t work, int threads, F&& f) {
  if (threads <= 1 || n <= 1 || work < (int64_t{1} << 16)) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) f(i);
}

}  // namespace vt::ops
