// Winograd F(4x4, 3x3) convolution (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2016) for 2-D convolutions with 3x3 filters, unit strides and dilations and any
// pads, one image and one group at a time.
//
// The padded input is cut into 6x6 patches d_c (channel c) that overlap by 2 and each give a
// 4x4 tile of output: Y_tile(m) = A^T [ sum_c U(m, c) * V(c) ] A, elementwise products of
// 6x6 matrices, with U(m, c) = G g(m, c) G^T (the filter, transformed once at session
// creation) and V(c) = B^T d_c B. For each of the 36 elements f of the 6x6 ("frequency"), the
// sum over c is one GEMM  M_f [M, T] = U_f [M, C] x V_f [C, T]  over the T tiles, which the
// f32 GEMM driver computes with U_f as prepacked A panels. A 4x4 tile then costs 36 * C
// multiply-adds per output channel instead of 16 * 9 * C: 4x fewer, plus transforms whose cost
// grows with C + M, not C * M. Interpolation points 0, +-1, +-2 and infinity:
//   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
//   G   = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]
//   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
// The transforms' coefficients (up to 8, and 1/24) make the result differ from a direct
// convolution by more than summation order alone: docs/accuracy.md states the bound the tests
// hold it to.
//
// Tiles are numbered row-major over the TH x TW tile grid (TH = ceil(OH / 4), TW = ceil(OW / 4));
// tile (tr, tw) reads padded input rows 4 tr .. 4 tr + 5 and columns 4 tw .. 4 tw + 5 (padded
// coordinates: input row = padded row - PH), zero outside the image, and writes the output rows
// and columns of [4 tr, 4 tr + 4) x [4 tw, 4 tw + 4) that lie inside [0, OH) x [0, OW).
//
// The transform rows of the table (scalar twin, AVX-512 and AVX2) apply each 1-D transform first
// down the columns of a 6x6 matrix and then along its rows, with the same additions and
// multiplications in the same order and no fused multiply-add, so they give bit-identical
// results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/gemm/f32_gemm.h"

namespace vt::kernels {

inline constexpr int kWinogradFrequencies = 36;  // elements of a 6x6 transformed tile

// Input and output of one image and group. Requires C, H, W, OH, OW >= 1 and PH, PW >= 0.
// Output (oh, ow) reads padded rows oh .. oh + 2 and columns ow .. ow + 2, so OH = H + PH +
// (end pad) - 2, and likewise OW.
struct F32WinogradGeometry {
  int64_t C = 0, H = 0, W = 0;  // input channels, height, width
  int64_t PH = 0, PW = 0;       // leading pads (rows above, columns left of the image)
  int64_t OH = 0, OW = 0;       // output height, width
  int64_t TH() const { return (OH + 3) / 4; }
  int64_t TW() const { return (OW + 3) / 4; }
};

// Input transform of tiles [t0, t0 + count) of x [C, H, W]: V_f(c, t) is stored at
// v[f * fstride + c * ldv + t - t0] (ldv >= count, fstride >= C * ldv). `scratch` holds
// F32WinogradScratchFloats(geo) floats (64-byte aligned) the row may use.
using F32WinogradInputFn = void (*)(const F32WinogradGeometry& geo, const float* x, int64_t t0,
                                    int64_t count, float* v, size_t ldv, size_t fstride,
                                    float* scratch);

// A frequency stride for `rows` rows of `ld` floats: at least rows * ld, and 64 bytes past a
// multiple of 4 KiB, so that the 36 frequencies of one tile fall into different L1 sets (at a
// multiple of 4 KiB, 36 stores or loads a tile apart would share one set's 8 ways).
inline size_t F32WinogradFrequencyStride(size_t rows, size_t ld) {
  return (rows * ld + 1023) / 1024 * 1024 + 16;
}

// What the output transform adds and clamps: y = min(max(A^T M A + bias[m], min), max).
struct F32WinogradEpilogue {
  const float* bias = nullptr;  // [M] or null
  bool clamp = false;
  float min = 0.0f, max = 0.0f;
};

// Output transform of tiles [t0, t0 + count): M_f(m, t) is read from
// mf[f * fstride + m * ldm + t - t0]; the tiles' outputs are written into y [M, OH, OW].
using F32WinogradOutputFn = void (*)(const F32WinogradGeometry& geo, int64_t M,
                                     const F32WinogradEpilogue& ep, const float* mf, size_t ldm,
                                     size_t fstride, int64_t t0, int64_t count, float* y);

// Floats of the input transform's scratch.
size_t F32WinogradScratchFloats(const F32WinogradGeometry& geo);

// Scalar reference twins (tile by tile, straight from the definitions above).
void f32_winograd_input_scalar(const F32WinogradGeometry& geo, const float* x, int64_t t0,
                               int64_t count, float* v, size_t ldv, size_t fstride, float* scratch);
void f32_winograd_output_scalar(const F32WinogradGeometry& geo, int64_t M,
                                const F32WinogradEpilogue& ep, const float* mf, size_t ldm,
                                size_t fstride, int64_t t0, int64_t count, float* y);
// AVX-512F: up to 16 tiles of a tile row per vector; the input rows are transformed down the
// columns first (contiguous loads), then each tile's columns are deinterleaved by permutes.
void f32_winograd_input_avx512(const F32WinogradGeometry& geo, const float* x, int64_t t0,
                               int64_t count, float* v, size_t ldv, size_t fstride, float* scratch);
void f32_winograd_output_avx512(const F32WinogradGeometry& geo, int64_t M,
                                const F32WinogradEpilogue& ep, const float* mf, size_t ldm,
                                size_t fstride, int64_t t0, int64_t count, float* y);
// AVX2: the same scheme with up to 8 tiles per vector; the deinterleave is a 4x4 transpose
// inside each 128-bit lane (tiles q and q + 4 share a vector load).
void f32_winograd_input_avx2(const F32WinogradGeometry& geo, const float* x, int64_t t0,
                             int64_t count, float* v, size_t ldv, size_t fstride, float* scratch);
void f32_winograd_output_avx2(const F32WinogradGeometry& geo, int64_t M,
                              const F32WinogradEpilogue& ep, const float* mf, size_t ldm,
                              size_t fstride, int64_t t0, int64_t count, float* y);

struct F32WinogradKernel {
  const char* name;
  const char* isa;
  F32WinogradInputFn input;
  F32WinogradOutputFn output;
  bool (*supported)();
};

// Rows fastest first; the last one is portable.
std::span<const F32WinogradKernel> F32WinogradKernels();
// First supported row (VT_F32_WINOGRAD_KERNEL may name a row or an ISA), chosen once.
const F32WinogradKernel& DefaultF32WinogradKernel();
// The row for a session capped at ISA `isa` ("avx512", "avx2", "portable": a session's --arch).
const F32WinogradKernel& F32WinogradKernelForIsa(std::string_view isa);

// Filter transform: g [M, C, 3, 3] row-major -> u [36, M, C] row-major, u[(f * M + m) * C + c]
// = (G g(m, c) G^T)[f / 6][f % 6], computed in double and rounded once.
void TransformF32WinogradFilters(const float* g, size_t M, size_t C, float* u);

// The 36 GEMM A operands U_f [M, C] of filter g [M, C, 3, 3], packed into panels of `mr` rows.
std::vector<F32Panels> MakeF32WinogradFilterPanels(size_t mr, const float* g, size_t M, size_t C);

// One image (and group) of a Winograd convolution: y [M, OH, OW] from x [C, H, W].
struct F32WinogradConv {
  F32WinogradGeometry geo;
  int64_t M = 0;                     // output channels
  const float* x = nullptr;          // [C, H, W]
  float* y = nullptr;                // [M, OH, OW]
  const F32Panels* u = nullptr;      // [36] MakeF32WinogradFilterPanels for gemm->mr
  const F32GemmKernel* gemm = nullptr;
  F32WinogradEpilogue epilogue;
  // Called once tiles [tw0, tw1) of tile row tr are final in every channel, i.e. output rows
  // [4 tr, min(4 tr + 4, OH)) x columns [4 tw0, min(4 tw1, OW)) (for a caller's epilogue that
  // the transform does not apply), or null. May run on any of the call's threads.
  void (*tiles_done)(const void* ctx, int64_t tr, int64_t tw0, int64_t tw1) = nullptr;
  const void* tiles_ctx = nullptr;
};

// Runs `c` in bands of consecutive tiles (whole multiples of the GEMM row's NR where the image
// has enough tiles) sized so that a band's transformed input and GEMM outputs stay in the L2
// cache; with threads > 1 the bands are spread over OpenMP threads (results do not depend on
// the thread count).
void RunF32WinogradConv(const F32WinogradKernel& k, const F32WinogradConv& c, int threads = 1);

}  // namespace vt::kernels
