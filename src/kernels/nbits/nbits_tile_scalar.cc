// Portable q8 tile pair (nbits_ukernel.h, "q8 tile rows"): the unpacked layout and the tile
// arithmetic in plain C++, the twins the AVX-512 pair is tested against.
#include <cmath>

#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {
namespace {

// Dword of row r in a line of quads (nbits_ukernel.h).
constexpr size_t UnpackedDword(size_t r) { return 4 * (r % 4) + r / 4; }

}  // namespace

void nbits4_unpack_q8_scalar(size_t kb, size_t bs, const uint8_t* codes, uint8_t* u) {
  const size_t blob = bs / 2, chunks = bs / 32;
  for (size_t b = 0; b < kb; ++b)
    for (size_t c = 0; c < chunks; ++c)
      for (size_t r = 0; r < kNBitsRows; ++r) {
        const uint8_t* q = codes + (b * kNBitsRows + r) * blob + c * 16;
        uint8_t* dst = u + (b * chunks + c) * 8 * 64 + UnpackedDword(r) * 4;
        for (size_t p = 0; p < 32; ++p) {
          const uint8_t code = p < 16 ? q[p] & 15 : q[p - 16] >> 4;
          dst[(p / 4) * 64 + p % 4] = code;
        }
      }
}

void gemm_nbits4u_q8_8x16_scalar(size_t mr, size_t nc, size_t kb, size_t bs, const Q4Q8Block* xq,
                                 size_t ldxq, const uint8_t* u, const NBitsPanel& w,
                                 const float* bias, float* y, size_t ldy) {
  const size_t chunks = bs / 32;
  for (size_t i = 0; i < mr; ++i)
    for (size_t r = 0; r < nc; ++r) {
      float acc = 0.0f;
      for (size_t b = 0; b < kb; ++b) {
        const float s = w.scales[b * kNBitsRows + r];
        const float zp = NBitsZeroPoint(w, b, r);
        for (size_t c = 0; c < chunks; ++c) {
          const Q4Q8Block& xb = xq[i * ldxq + b * chunks + c];
          const uint8_t* quads = u + (b * chunks + c) * 8 * 64 + UnpackedDword(r) * 4;
          int32_t dot = 0;
          for (size_t p = 0; p < 32; ++p) dot += xb.q[p] * quads[(p / 4) * 64 + p % 4];
          const int32_t sum = -xb.neg8sum[0] / 8;
          // The q8 rows' roundings (NBitsQ8GemmReference): one for v, exact for integer zero
          // points, then the product with f32(s * d) and the f32 sum in (b, c) order.
          const float v = std::fma(-zp, static_cast<float>(sum), static_cast<float>(dot));
          acc += v * (s * xb.d);
        }
      }
      y[i * ldy + r] = acc + (bias != nullptr ? bias[r] : 0.0f);
    }
}

}  // namespace vt::kernels
