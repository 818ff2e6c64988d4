// Direct 2-D convolution for inputs of few channels: the first layer of an image model (RGB
// input, C = 3), where the GEMM modes spend more time forming the B operand (phase planes,
// panels of C * KH * KW rows, the wide output grid and its copy into Y) than multiplying.
//
// Per output row, each input row the row reads is split into its SW column phases with the
// pads as zeros (a few KiB in L1: `rowbuf`); then each tile of MR output channels x 32 output
// columns is summed in registers over k = (c, kh, kw), the row order of the packed filter panels
// (kernels/gemm/f32_gemm_pack.h) that the packed Conv mode multiplies, and in the order of
// kernels/gemm/f32_gemm_ukernel.h: from zero, one fused multiply-add per step, then added to the
// bias and clamped, with subnormals flushed as the GEMM flushes them (kernels/cpu/
// flush_denormals.h). So the output is the same bits as the packed mode's GEMM with the same
// panels (the test compares bytes).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/gemm/f32_gemm_pack.h"

namespace vt::kernels {

// One image and group: x [C, H, W] -> y [M, OH, OW]; OH, OW as ONNX Conv computes them from
// the pads (PH, PW leading; the trailing pads only shape OH, OW).
struct F32DirectConvGeometry {
  int64_t C = 0, H = 0, W = 0;
  int64_t KH = 0, KW = 0, SH = 1, SW = 1, DH = 1, DW = 1, PH = 0, PW = 0;
  int64_t OH = 0, OW = 0;
  int64_t K() const { return C * KH * KW; }
};

// Input channels and reduction length the kernel takes (one sum block of the GEMM order, so
// each output is one chain of fused multiply-adds).
inline constexpr int64_t kF32DirectConvMaxChannels = 4;
inline constexpr int64_t kF32DirectConvMaxK = 128;

// Output columns per register tile (two vectors).
inline constexpr int64_t kF32DirectConvTileCols = 32;

// Floats per phase row of the row buffer: column j of phase q of the tap row (c, kh) holds input
// column j * SW + q - PW of the row it reads (0 outside the image); room for the last tile's
// columns plus the largest tap offset, (KW - 1) * DW / SW.
inline int64_t F32DirectConvRowPitch(const F32DirectConvGeometry& g) {
  auto round_up = [](int64_t n, int64_t to) { return (n + to - 1) / to * to; };
  return round_up(g.OW, kF32DirectConvTileCols) + round_up((g.KW - 1) * g.DW / g.SW + 1, 16);
}

// Whether f32_conv_direct_avx512 takes `g` with filter panels `mr` rows wide: C <= 4, K <= 128,
// OW >= 16 (narrower rows would leave lanes idle), MR one of 1, 2, 4, 6, 8, 12, 14, all sizes,
// strides, dilations >= 1 and pads >= 0, and an AVX-512 CPU.
bool F32DirectConvApplies(const F32DirectConvGeometry& g, size_t mr);

// Floats of one thread's row buffer (64-byte aligned): C * KH * SW phase rows.
size_t F32DirectConvRowFloats(const F32DirectConvGeometry& g);

// Output rows [oh0, oh1) of y [M, OH, OW]: y(m, oh, ow) = clamp(bias[m] + sum_k A(m, k) X_k) with
// A the panels `w` (width MR, k == K, extent >= M; rows k in (c, kh, kw) order), `bias` [M] or
// null, the clamp [min, max] when `clamp`. `rowbuf` holds F32DirectConvRowFloats(g) floats.
// Requires F32DirectConvApplies(g, w.width).
void f32_conv_direct_avx512(const F32DirectConvGeometry& g, const F32Panels& w, int64_t M,
                            const float* bias, bool clamp, float min, float max, const float* x,
                            int64_t oh0, int64_t oh1, float* y, float* rowbuf);

}  // namespace vt::kernels
