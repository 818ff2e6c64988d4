#include "kernels/nbits/nbits_pack.h"

#include <cstring>

#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {

size_t NBitsPanelBytes(size_t n, size_t cols, size_t unit_bytes) {
  return (n + kNBitsRows - 1) / kNBitsRows * kNBitsRows * cols * unit_bytes;
}

void PackNBitsRowsToPanels(size_t n, size_t cols, size_t unit_bytes, const uint8_t* src,
                           uint8_t* dst) {
  const size_t panels = (n + kNBitsRows - 1) / kNBitsRows;
  for (size_t p = 0; p < panels; ++p)
    for (size_t c = 0; c < cols; ++c)
      for (size_t r = 0; r < kNBitsRows; ++r) {
        uint8_t* d = dst + ((p * cols + c) * kNBitsRows + r) * unit_bytes;
        const size_t row = p * kNBitsRows + r;
        if (row < n) std::memcpy(d, src + (row * cols + c) * unit_bytes, unit_bytes);
        else std::memset(d, 0, unit_bytes);
      }
}

}  // namespace vt::kernels
