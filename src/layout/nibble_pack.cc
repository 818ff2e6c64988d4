#include "vtensor/layout/nibble_pack.h"

namespace vt {

void PackNibbles(const uint8_t* src, int64_t n, uint8_t* dst) {
  for (int64_t j = 0; 2 * j < n; ++j) {
    const uint8_t lo = src[2 * j] & 0x0F;
    const uint8_t hi = 2 * j + 1 < n ? (src[2 * j + 1] & 0x0F) : 0;
    dst[j] = static_cast<uint8_t>(lo | (hi << 4));
  }
}

void UnpackNibbles(DType t, const uint8_t* src, int64_t n, uint8_t* dst) {
  const bool sign_extend = t == DType::kInt4;
  for (int64_t i = 0; i < n; ++i) {
    uint8_t v = (i & 1) ? (src[i / 2] >> 4) : (src[i / 2] & 0x0F);
    if (sign_extend && (v & 0x08)) v |= 0xF0;
    dst[i] = v;
  }
}

}  // namespace vt
