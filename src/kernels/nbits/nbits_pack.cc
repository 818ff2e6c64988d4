#include "kernels/nbits/nbits_pack.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu/parallel_pack.h"
#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {

size_t NBitsPanelBytes(size_t n, size_t cols, size_t unit_bytes) {
  return (n + kNBitsRows - 1) / kNBitsRows * kNBitsRows * cols * unit_bytes;
}

namespace {

// Panels [p0, p1), written front to back: for each column, the 16 rows' units. U is the unit
// size at compile time for the common sizes (U = 0: `unit` at run time).
template <size_t U>
void PackPanels(size_t n, size_t cols, size_t unit, const uint8_t* src, uint8_t* dst, size_t p0,
                size_t p1) {
  const size_t u = U != 0 ? U : unit, row_bytes = cols * u;
  for (size_t p = p0; p < p1; ++p) {
    const size_t rows = std::min(kNBitsRows, n - p * kNBitsRows);
    const uint8_t* s = src + p * kNBitsRows * row_bytes;
    uint8_t* d = dst + p * kNBitsRows * row_bytes;
    for (size_t c = 0; c < cols; ++c, s += u) {
      const uint8_t* sr = s;
      for (size_t r = 0; r < rows; ++r, sr += row_bytes, d += u) std::memcpy(d, sr, u);
      if (rows < kNBitsRows) {
        std::memset(d, 0, (kNBitsRows - rows) * u);
        d += (kNBitsRows - rows) * u;
      }
    }
  }
}

void PackPanelRange(size_t n, size_t cols, size_t unit, const uint8_t* src, uint8_t* dst,
                    size_t p0, size_t p1) {
  switch (unit) {
    case 1: return PackPanels<1>(n, cols, unit, src, dst, p0, p1);
    case 2: return PackPanels<2>(n, cols, unit, src, dst, p0, p1);
    case 4: return PackPanels<4>(n, cols, unit, src, dst, p0, p1);
    case 8: return PackPanels<8>(n, cols, unit, src, dst, p0, p1);
    case 16: return PackPanels<16>(n, cols, unit, src, dst, p0, p1);
    case 32: return PackPanels<32>(n, cols, unit, src, dst, p0, p1);
    default: return PackPanels<0>(n, cols, unit, src, dst, p0, p1);
  }
}

}  // namespace

void PackNBitsRowsToPanels(size_t n, size_t cols, size_t unit_bytes, const uint8_t* src,
                           uint8_t* dst) {
  const size_t panels = (n + kNBitsRows - 1) / kNBitsRows;
  const int threads = ParallelPackThreads(NBitsPanelBytes(n, cols, unit_bytes), panels);
  if (threads <= 1) return PackPanelRange(n, cols, unit_bytes, src, dst, 0, panels);
  // Contiguous ranges of whole panels per thread: disjoint outputs.
#pragma omp parallel num_threads(threads)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    const size_t k = static_cast<size_t>(omp_get_num_threads());
    PackPanelRange(n, cols, unit_bytes, src, dst, panels * t / k, panels * (t + 1) / k);
  }
}

void PackNBitsRowsToPanelsReference(size_t n, size_t cols, size_t unit_bytes, const uint8_t* src,
                                    uint8_t* dst) {
  const size_t panels = (n + kNBitsRows - 1) / kNBitsRows;
  for (size_t p = 0; p < panels; ++p)
    for (size_t c = 0; c < cols; ++c)
      for (size_t r = 0; r < kNBitsRows; ++r)
        for (size_t b = 0; b < unit_bytes; ++b) {
          const size_t row = p * kNBitsRows + r;
          dst[((p * cols + c) * kNBitsRows + r) * unit_bytes + b] =
              row < n ? src[(row * cols + c) * unit_bytes + b] : 0;
        }
}

}  // namespace vt::kernels
