// How many OpenMP threads a load-time packing call uses: the caller's thread budget
// (omp_get_max_threads(), which Session sets from SessionOptions::threads), but one thread
// inside a parallel region (a pack called from a running kernel) and never so many that a
// thread gets less than kMinPackBytesPerThread of output (starting a team costs more than
// packing a small weight) or less than one unit of work (a panel, a row block).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>

namespace vt::kernels {

inline constexpr size_t kMinPackBytesPerThread = size_t{1} << 20;

inline int ParallelPackThreads(size_t out_bytes, size_t units) {
  if (omp_in_parallel()) return 1;
  const size_t by_bytes = out_bytes / kMinPackBytesPerThread;
  const size_t t = std::min({static_cast<size_t>(std::max(1, omp_get_max_threads())), by_bytes,
                             units});
  return static_cast<int>(std::max<size_t>(1, t));
}

}  // namespace vt::kernels
