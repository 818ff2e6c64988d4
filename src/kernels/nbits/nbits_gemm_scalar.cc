// Reference twin and portable row of the MatMulNBits kernels (nbits_ukernel.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {

void NBitsGemmReference(size_t mr, size_t nc, size_t kb, size_t bs, const float* x, size_t ldx,
                        const NBitsPanel& w, const float* bias, float* y, size_t ldy) {
  const size_t blob = bs / 2;
  for (size_t i = 0; i < mr; ++i) {
    for (size_t r = 0; r < nc; ++r) {
      float acc = 0.0f;
      for (size_t b = 0; b < kb; ++b) {
        const float s = w.scales[b * kNBitsRows + r];
        const float zp = NBitsZeroPoint(w, b, r);
        const uint8_t* q = w.codes + (b * kNBitsRows + r) * blob;
        const float* xb = x + i * ldx + b * bs;
        // Logical element k of the block: byte k / 2, low nibble when k is even; in pair
        // order it sits at chunk (k / 32), half (k & 1), position (k % 32) / 2.
        for (size_t k = 0; k < bs; ++k) {
          const uint8_t byte = q[k / 2];
          const float u = static_cast<float>((k & 1) != 0 ? byte >> 4 : byte & 15);
          const float wv = (u - zp) * s;
          const float xv = xb[(k / 32) * 32 + (k & 1) * 16 + (k % 32) / 2];
          acc += xv * wv;
        }
      }
      y[i * ldy + r] = acc + (bias != nullptr ? bias[r] : 0.0f);
    }
  }
}

void gemm_nbits4_f32_8x16_scalar(size_t mr, size_t nc, size_t kb, size_t bs, const float* x,
                                 size_t ldx, const NBitsPanel& w, const float* bias, float* y,
                                 size_t ldy) {
  NBitsGemmReference(mr, nc, kb, bs, x, ldx, w, bias, y, ldy);
}

void NBitsQuantizeXQ8(size_t m, size_t k, size_t bs, const float* x, size_t ldx,
                      Q4Q8Block* xq) {
  const size_t chunks = k / 32;
  for (size_t i = 0; i < m; ++i)
    for (size_t b0 = 0; b0 < k; b0 += bs) {
      const float* src = x + i * ldx + b0;
      float amax = 0.0f;
      for (size_t j = 0; j < bs; ++j) amax = std::max(amax, std::fabs(src[j]));
      const float d = amax / 127.0f;
      // q = x * (127 / amax), not x / d: ONNX Runtime's quantizer multiplies by that
      // reciprocal, and the two round differently on a few values (one code apart), which
      // grows into different greedy tokens over a decoder's layers (docs/genai.md).
      const float inv = amax != 0.0f ? 127.0f / amax : 0.0f;
      for (size_t c = 0; c < bs / 32; ++c) {
        Q4Q8Block& out = xq[i * chunks + b0 / 32 + c];
        std::memset(&out, 0, sizeof(out));
        if (d == 0.0f) continue;
        int32_t sum = 0;
        for (size_t j = 0; j < 32; ++j) {
          const float q = std::nearbyint(src[c * 32 + j] * inv);
          out.q[j] = static_cast<int8_t>(std::clamp(q, -127.0f, 127.0f));
          sum += out.q[j];
        }
        out.neg8sum[0] = -8 * sum;
        out.d = d;
      }
    }
}

void nbits_quantize_q8_scalar(size_t m, size_t K, size_t kb, size_t bs, const float* x,
                              size_t ldx, Q4Q8Block* xq, size_t ldxq) {
  const size_t ldp = kb * bs;
  std::vector<float> xp(ldp);
  for (size_t i = 0; i < m; ++i) {
    std::fill(xp.begin(), xp.end(), 0.0f);
    for (size_t k = 0; k < K; ++k) xp[(k / 32) * 32 + (k & 1) * 16 + (k % 32) / 2] = x[i * ldx + k];
    NBitsQuantizeXQ8(1, ldp, bs, xp.data(), ldp, xq + i * ldxq);
  }
}

void NBitsQ8GemmReference(size_t mr, size_t nc, size_t kb, size_t bs, const Q4Q8Block* xq,
                          size_t ldxq, const NBitsPanel& w, const float* bias, float* y,
                          size_t ldy) {
  const size_t blob = bs / 2, chunks = bs / 32;
  for (size_t i = 0; i < mr; ++i)
    for (size_t r = 0; r < nc; ++r) {
      float acc = 0.0f;
      for (size_t b = 0; b < kb; ++b) {
        const float s = w.scales[b * kNBitsRows + r];
        const float zp = NBitsZeroPoint(w, b, r);
        for (size_t c = 0; c < chunks; ++c) {
          const Q4Q8Block& xb = xq[i * ldxq + b * chunks + c];
          const uint8_t* q = w.codes + (b * kNBitsRows + r) * blob + c * 16;
          int32_t dot = 0;
          // Pair order: activation byte j (< 16) is the even element 2j (low nibble of code
          // byte j), byte 16 + j the odd element 2j + 1 (high nibble).
          for (size_t j = 0; j < 16; ++j)
            dot += xb.q[j] * (q[j] & 15) + xb.q[16 + j] * (q[j] >> 4);
          const int32_t sum = -xb.neg8sum[0] / 8;
          // One rounding (exact for integer zero points), as the kernels' fused multiply-add.
          const float v = std::fma(-zp, static_cast<float>(sum), static_cast<float>(dot));
          acc += v * (s * xb.d);
        }
      }
      y[i * ldy + r] = acc + (bias != nullptr ? bias[r] : 0.0f);
    }
}

}  // namespace vt::kernels
