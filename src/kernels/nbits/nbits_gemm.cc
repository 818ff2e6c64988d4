#include "kernels/nbits/nbits_gemm.h"

#include <algorithm>
#include <cassert>
#include <vector>

#include "kernels/cpu/flush_denormals.h"

namespace vt::kernels {

void NBitsGemm(const NBitsGemmKernel& kernel, size_t M, size_t N, size_t K, size_t bs,
               const float* x, size_t ldx, const NBitsPanel& w, const float* bias, float* y,
               size_t ldy, int threads) {
  assert(bs % 32 == 0 && kernel.mr >= 1 && kernel.mr <= kNBitsMaxMr);
  if (M == 0 || N == 0) return;
  const size_t kb = (K + bs - 1) / bs;
  if (K == 0) {
    for (size_t m = 0; m < M; ++m)
      for (size_t n = 0; n < N; ++n) y[m * ldy + n] = bias != nullptr ? bias[n] : 0.0f;
    return;
  }
  // Pair order: in each chunk of 32, the even elements then the odd ones; zero tail.
  const size_t ldp = kb * bs;
  std::vector<float> xp(M * ldp, 0.0f);
  for (size_t m = 0; m < M; ++m) {
    const float* src = x + m * ldx;
    float* dst = xp.data() + m * ldp;
    for (size_t k = 0; k < K; ++k) dst[(k / 32) * 32 + (k & 1) * 16 + (k % 32) / 2] = src[k];
  }
  const size_t panels = (N + kNBitsRows - 1) / kNBitsRows;
  const size_t blob = bs / 2, kzb = (kb + 1) / 2;
  const long long np = static_cast<long long>(panels);
  // q8 rows: the pair-ordered activations quantized once per call, one scale per weight block.
  std::vector<Q4Q8Block> xq;
  const size_t ldq = ldp / 32;
  if (kernel.q8_ukernel != nullptr) {
    xq.resize(M * ldq);
    const ScopedFlushDenormals ftz;
    NBitsQuantizeXQ8(M, ldp, bs, xp.data(), ldp, xq.data());
  }
#pragma omp parallel num_threads(threads) if (threads > 1 && panels > 1)
  {
    const ScopedFlushDenormals ftz;
#pragma omp for schedule(static)
    for (long long pi = 0; pi < np; ++pi) {
      const size_t p = static_cast<size_t>(pi);
      NBitsPanel pw = w;
      pw.codes = w.codes + p * kb * kNBitsRows * blob;
      pw.scales = w.scales + p * kb * kNBitsRows;
      if (w.zp_u4 != nullptr) pw.zp_u4 = w.zp_u4 + p * kzb * kNBitsRows;
      if (w.zp_f32 != nullptr) pw.zp_f32 = w.zp_f32 + p * kb * kNBitsRows;
      const size_t n0 = p * kNBitsRows;
      const size_t nc = std::min(kNBitsRows, N - n0);
      for (size_t m = 0; m < M; m += kernel.mr) {
        if (kernel.q8_ukernel != nullptr)
          kernel.q8_ukernel(std::min(kernel.mr, M - m), nc, kb, bs, xq.data() + m * ldq, ldq, pw,
                            bias != nullptr ? bias + n0 : nullptr, y + m * ldy + n0, ldy);
        else
          kernel.ukernel(std::min(kernel.mr, M - m), nc, kb, bs, xp.data() + m * ldp, ldp, pw,
                         bias != nullptr ? bias + n0 : nullptr, y + m * ldy + n0, ldy);
      }
    }
  }
}

}  // namespace vt::kernels
