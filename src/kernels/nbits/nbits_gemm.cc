#include "kernels/nbits/nbits_gemm.h"

#include <algorithm>
#include <cassert>

#include "kernels/cpu/flush_denormals.h"
#include "vtensor/base/aligned_alloc.h"

namespace vt::kernels {
namespace {

// Per-thread buffers that only grow: a prefill calls the driver with megabytes of activations
// per layer, and fresh heap pages each call cost page faults (docs/genai.md).
template <typename T>
struct Grow {
  AlignedArray<T> p;
  size_t n = 0;
  T* Get(size_t want) {
    if (want > n) {
      p = AllocateAlignedArray<T>(want);
      n = want;
    }
    return p.get();
  }
};
struct Scratch {
  Grow<float> xp;       // f32 rows: pair-ordered activations
  Grow<Q4Q8Block> xq;   // q8 rows: quantized activations
  Grow<uint8_t> u;      // tile: one unpacked panel
};
Scratch& ThreadScratch() {
  thread_local Scratch s;
  return s;
}

}  // namespace

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
  const size_t ldp = kb * bs, ldq = ldp / 32;
  const bool q8 = kernel.q8_ukernel != nullptr;
  Scratch& scratch = ThreadScratch();
  float* xp = nullptr;
  Q4Q8Block* xq = nullptr;
  if (q8) {
    // The pair-ordered activations quantized once per call, one scale per weight block.
    xq = scratch.xq.Get(M * ldq);
    const ScopedFlushDenormals ftz;
    (kernel.q8_quantize != nullptr ? kernel.q8_quantize : nbits_quantize_q8_scalar)(
        M, K, kb, bs, x, ldx, xq, ldq);
  } else {
    // Pair order: in each chunk of 32, the even elements then the odd ones; zero tail.
    xp = scratch.xp.Get(M * ldp);
    for (size_t m = 0; m < M; ++m) {
      const float* src = x + m * ldx;
      float* dst = xp + m * ldp;
      std::fill(dst + (K / 32) * 32, dst + ldp, 0.0f);
      for (size_t k = 0; k < K; ++k) dst[(k / 32) * 32 + (k & 1) * 16 + (k % 32) / 2] = src[k];
    }
  }
  const size_t panels = (N + kNBitsRows - 1) / kNBitsRows;
  const size_t blob = bs / 2, kzb = (kb + 1) / 2;
  const long long np = static_cast<long long>(panels);
  // M > 1 on a row with a tile pair: each panel's codes are unpacked once (per thread buffer)
  // and every MR rows run against them (nbits_ukernel.h, "q8 tile rows").
  const bool tile = kernel.q8_tile != nullptr && M >= kNBitsTileMinRows;
#pragma omp parallel num_threads(threads) if (threads > 1 && panels > 1)
  {
    const ScopedFlushDenormals ftz;
    uint8_t* u = tile ? ThreadScratch().u.Get(NBitsUnpackedBytes(kb, bs)) : nullptr;
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
      const float* pb = bias != nullptr ? bias + n0 : nullptr;
      if (tile) kernel.q8_unpack(kb, bs, pw.codes, u);
      for (size_t m = 0; m < M; m += kernel.mr) {
        const size_t mr = std::min(kernel.mr, M - m);
        if (tile)
          kernel.q8_tile(mr, nc, kb, bs, xq + m * ldq, ldq, u, pw, pb, y + m * ldy + n0, ldy);
        else if (q8)
          kernel.q8_ukernel(mr, nc, kb, bs, xq + m * ldq, ldq, pw, pb, y + m * ldy + n0, ldy);
        else
          kernel.ukernel(mr, nc, kb, bs, xp + m * ldp, ldp, pw, pb, y + m * ldy + n0, ldy);
      }
    }
  }
}

}  // namespace vt::kernels
