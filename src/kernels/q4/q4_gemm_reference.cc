// Scalar reference twins of the q4 GEMM microkernels (q4_ukernel.h): every block is decoded by
// the encoding's own traits (the single definition of the format) and the products are summed
// in f32 in increasing k order. The q8 twin quantizes activations exactly as q4_ukernel.h
// specifies and sums exact per-block integer dots scaled in f32, in increasing block order.
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/q4/q4_ukernel.h"
#include "vtensor/layout/dtype.h"
#include "vtensor/layout/encoding.h"

namespace vt::kernels {
namespace {

void Reference(Encoding enc, size_t rows, size_t mr, size_t nc, size_t kb, const float* x,
               size_t ldx, const uint8_t* w, const float* bias, float* y, size_t ldy) {
  const EncodingTraits& t = GetEncodingTraits(enc);
  const size_t e = static_cast<size_t>(t.block_elems), bytes = static_cast<size_t>(t.block_bytes);
  std::vector<float> row(kb * e);
  for (size_t r = 0; r < nc; ++r) {
    for (size_t b = 0; b < kb; ++b)
      t.to_float(w + (b * rows + r) * bytes, row.data() + b * e, static_cast<int64_t>(e));
    for (size_t i = 0; i < mr; ++i) {
      float acc = 0.0f;
      for (size_t k = 0; k < kb * e; ++k) acc += x[i * ldx + k] * row[k];
      y[i * ldy + r] = acc + (bias != nullptr ? bias[r] : 0.0f);
    }
  }
}

}  // namespace

void Q4_0QuantizeXQ8Reference(size_t m, size_t k, const float* x, size_t ldx, Q4Q8Block* xq) {
  const size_t kb = (k + 31) / 32;
  for (size_t i = 0; i < m; ++i)
    for (size_t b = 0; b < kb; ++b) {
      Q4Q8Block& out = xq[i * kb + b];
      std::memset(&out, 0, sizeof(out));
      float v[32] = {};
      for (size_t j = 0; j < 32 && b * 32 + j < k; ++j) v[j] = x[i * ldx + b * 32 + j];
      float amax = 0.0f;
      for (float f : v) amax = std::fabs(f) > amax ? std::fabs(f) : amax;
      const float d = amax / 127.0f;
      if (d == 0.0f) continue;
      int32_t sum = 0;
      for (size_t j = 0; j < 32; ++j) {
        const float r = std::nearbyint(v[j] / d);
        // Finite inputs give r in [-127, 127]; the clamp only keeps non-finite ones defined.
        const int q = r >= 127.0f ? 127 : r <= -127.0f ? -127 : r == r ? static_cast<int>(r) : 0;
        out.q[j] = static_cast<int8_t>(q);
        sum += q;
      }
      out.neg8sum[0] = -8 * sum;
      out.d = d;
    }
}

void Q4_0Q8GemmReference(size_t rows, size_t mr, size_t nc, size_t kb, const Q4Q8Block* xq,
                         size_t ldxq, const uint8_t* w, const float* bias, float* y, size_t ldy) {
  for (size_t r = 0; r < nc; ++r)
    for (size_t i = 0; i < mr; ++i) {
      float acc = 0.0f;
      for (size_t b = 0; b < kb; ++b) {
        const uint8_t* blk = w + (b * rows + r) * sizeof(BlockQ4_0);
        const Q4Q8Block& xb = xq[i * ldxq + b];
        uint16_t h;
        std::memcpy(&h, blk, 2);
        int32_t dot = xb.neg8sum[0];
        for (size_t j = 0; j < 16; ++j)
          dot += xb.q[j] * (blk[2 + j] & 15) + xb.q[j + 16] * (blk[2 + j] >> 4);
        const float s = HalfToFloat(h) * xb.d;
        const float term = static_cast<float>(dot) * s;
        acc += term;
      }
      y[i * ldy + r] = acc + (bias != nullptr ? bias[r] : 0.0f);
    }
}

void Q4_0GemmReference(size_t rows, size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                       const uint8_t* w, const float* bias, float* y, size_t ldy) {
  Reference(Encoding::kQ4_0, rows, mr, nc, kb, x, ldx, w, bias, y, ldy);
}

void Q4_KGemmReference(size_t rows, size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                       const uint8_t* w, const float* bias, float* y, size_t ldy) {
  Reference(Encoding::kQ4_K, rows, mr, nc, kb, x, ldx, w, bias, y, ldy);
}

}  // namespace vt::kernels
