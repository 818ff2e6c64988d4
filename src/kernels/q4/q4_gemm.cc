#include "kernels/q4/q4_gemm.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "kernels/cpu/flush_denormals.h"
#include "vtensor/layout/encoding.h"

namespace vt::kernels {
namespace {

// Runs `kernel` over all panels: the M rows 8 at a time inside each panel, so a panel's weight
// bytes are read from memory once and reused from cache by later row chunks.
void Drive(const Q4GemmKernel& kernel, size_t block_elems, size_t block_bytes, size_t M,
           size_t N, size_t K, const float* x, size_t ldx, const uint8_t* w, const float* bias,
           float* y, size_t ldy, int threads) {
  assert(kernel.rows >= 1 && kernel.mr >= 1 && kernel.mr <= kQ4MaxMr);
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (size_t m = 0; m < M; ++m)
      for (size_t n = 0; n < N; ++n) y[m * ldy + n] = bias != nullptr ? bias[n] : 0.0f;
    return;
  }
  const size_t kb = (K + block_elems - 1) / block_elems;
  const size_t rows = kernel.rows;
  const size_t panels = (N + rows - 1) / rows;
  const size_t panel_bytes = kb * rows * block_bytes;
  const long long np = static_cast<long long>(panels);
  // q8 rows quantize the activations once per call (zero-padded to whole blocks); f32 rows
  // read whole blocks, so a ragged K is zero-padded into a copy of X.
  std::vector<Q4Q8Block> xq;
  std::vector<float> padded;
  if (kernel.quantize_x != nullptr) {
    assert(kernel.q8_ukernel != nullptr && block_elems == 32);
    xq.resize(M * kb);
    const ScopedFlushDenormals ftz;
    kernel.quantize_x(M, K, x, ldx, xq.data());
  } else {
    assert(kernel.ukernel != nullptr);
    if (K % block_elems != 0) {
      const size_t ldp = kb * block_elems;
      padded.assign(M * ldp, 0.0f);
      for (size_t m = 0; m < M; ++m) std::memcpy(&padded[m * ldp], x + m * ldx, K * sizeof(float));
      x = padded.data();
      ldx = ldp;
    }
  }
#pragma omp parallel num_threads(threads) if (threads > 1 && panels > 1)
  {
    const ScopedFlushDenormals ftz;
#pragma omp for schedule(static)
    for (long long p = 0; p < np; ++p) {
      const size_t n0 = static_cast<size_t>(p) * rows;
      const size_t nc = std::min(rows, N - n0);
      const uint8_t* wp = w + static_cast<size_t>(p) * panel_bytes;
      const float* bp = bias != nullptr ? bias + n0 : nullptr;
      for (size_t m = 0; m < M; m += kernel.mr) {
        const size_t mr = std::min(kernel.mr, M - m);
        if (!xq.empty())
          kernel.q8_ukernel(mr, nc, kb, xq.data() + m * kb, kb, wp, bp, y + m * ldy + n0, ldy);
        else
          kernel.ukernel(mr, nc, kb, x + m * ldx, ldx, wp, bp, y + m * ldy + n0, ldy);
      }
    }
  }
}

}  // namespace

void Q4_0Gemm(const Q4GemmKernel& kernel, size_t M, size_t N, size_t K, const float* x,
              size_t ldx, const uint8_t* w_packed, const float* bias, float* y, size_t ldy,
              int threads) {
  Drive(kernel, kQ4_0Elems, sizeof(BlockQ4_0), M, N, K, x, ldx, w_packed, bias, y, ldy, threads);
}

void Q4_KGemm(const Q4GemmKernel& kernel, size_t M, size_t N, size_t K, const float* x,
              size_t ldx, const uint8_t* w_packed, const float* bias, float* y, size_t ldy,
              int threads) {
  Drive(kernel, kQ4_KElems, sizeof(BlockQ4_K), M, N, K, x, ldx, w_packed, bias, y, ldy, threads);
}

}  // namespace vt::kernels
