// AVX-512F 2x2 stride-2 ConvTranspose (f32_conv_transpose_2x2.h). Compiled with
// -ffp-contract=off: the only fused multiply-adds are the summation's own.
#include <immintrin.h>

#include <algorithm>

#include "kernels/conv/f32_conv_transpose_2x2.h"
#include "kernels/cpu/flush_denormals.h"

// GCC 12's masked-load intrinsics trip -Wmaybe-uninitialized on their own placeholder operand.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace vt::kernels {
namespace {

// Output channels per register tile: MB channels x 2 taps accumulators.
constexpr int kMaxBlock = 8;

// Output row 2 ih + kh of channels [m0, m0 + MB) over input columns [iw0, iw0 + n), n <= 16:
// `xr` is input row ih of channel 0 (channel stride `cstride`), `yr` output row 2 ih + kh of
// channel m0 (channel stride `ystride`).
template <int MB>
void Block(const F32ConvTranspose2x2Geometry& g, const float* w, const float* bias, int64_t m0,
           int64_t kh, const float* xr, int64_t cstride, int64_t iw0, int64_t n, float* yr,
           int64_t ystride) {
  const __mmask16 in_mask = n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1u);
  const int64_t lo = std::min<int64_t>(n, 8), hi = std::max<int64_t>(n - 8, 0);
  const __mmask16 lo_mask = __mmask16((1u << (2 * lo)) - 1u);
  const __mmask16 hi_mask = __mmask16((1u << (2 * hi)) - 1u);
  __m512 acc[MB][2];
#pragma GCC unroll 8
  for (int j = 0; j < MB; ++j) acc[j][0] = acc[j][1] = _mm512_setzero_ps();
  // W(c, m, kh, kw) at ((c * M + m) * 2 + kh) * 2 + kw.
  const float* wk = w + (m0 * 2 + kh) * 2;
  for (int64_t c = 0; c < g.C; ++c) {
    const __m512 xv = _mm512_maskz_loadu_ps(in_mask, xr + c * cstride + iw0);
    const float* wc = wk + c * g.M * 4;
#pragma GCC unroll 8
    for (int j = 0; j < MB; ++j) {
      acc[j][0] = _mm512_fmadd_ps(_mm512_set1_ps(wc[4 * j]), xv, acc[j][0]);
      acc[j][1] = _mm512_fmadd_ps(_mm512_set1_ps(wc[4 * j + 1]), xv, acc[j][1]);
    }
  }
  // Lanes i of the two taps -> output columns 2 i and 2 i + 1.
  const __m512i ilo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i ihi =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
#pragma GCC unroll 8
  for (int j = 0; j < MB; ++j) {
    // The GEMM's init: the row's bias plus no column bias (f32_gemm_ukernel.h).
    const __m512 init =
        _mm512_add_ps(bias != nullptr ? _mm512_set1_ps(bias[m0 + j]) : _mm512_setzero_ps(),
                      _mm512_setzero_ps());
    const __m512 t0 = _mm512_add_ps(init, acc[j][0]), t1 = _mm512_add_ps(init, acc[j][1]);
    float* out = yr + j * ystride + 2 * iw0;
    _mm512_mask_storeu_ps(out, lo_mask, _mm512_permutex2var_ps(t0, ilo, t1));
    _mm512_mask_storeu_ps(out + 16, hi_mask, _mm512_permutex2var_ps(t0, ihi, t1));
  }
}

using BlockFn = void (*)(const F32ConvTranspose2x2Geometry&, const float*, const float*, int64_t,
                         int64_t, const float*, int64_t, int64_t, int64_t, float*, int64_t);

}  // namespace

void f32_conv_transpose_2x2_avx512(const F32ConvTranspose2x2Geometry& g, const float* w,
                                   const float* bias, const float* x, int64_t ih0, int64_t ih1,
                                   float* y) {
  const ScopedFlushDenormals ftz;  // as the GEMM's blocks
  const int64_t OW = 2 * g.W, out_sz = 4 * g.H * g.W, in_sz = g.H * g.W;
  for (int64_t ih = ih0; ih < ih1; ++ih)
    for (int64_t kh = 0; kh < 2; ++kh) {
      float* yr = y + (2 * ih + kh) * OW;
      for (int64_t m0 = 0; m0 < g.M;) {
        // Blocks of 8 channels, then one of the rest.
        const int64_t mb = std::min<int64_t>(kMaxBlock, g.M - m0);
        static constexpr BlockFn kBlocks[kMaxBlock + 1] = {
            nullptr,  Block<1>, Block<2>, Block<3>, Block<4>,
            Block<5>, Block<6>, Block<7>, Block<8>};
        for (int64_t iw0 = 0; iw0 < g.W; iw0 += 16)
          kBlocks[mb](g, w, bias, m0, kh, x + ih * g.W, in_sz, iw0, std::min<int64_t>(16, g.W - iw0),
                      yr + m0 * out_sz, out_sz);
        m0 += mb;
      }
    }
}

}  // namespace vt::kernels
