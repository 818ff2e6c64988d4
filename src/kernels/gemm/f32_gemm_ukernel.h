// f32 GEMM microkernels: the innermost tile C[mr x nc] += A[mr x kc] * B[kc x nc].
//
// Contract shared by every `f32_gemm_<MR>x<NR>_<isa>` kernel (XNNPACK-style: pointers and
// strides in, no allocation, no threads, no framework types):
//   A  is one packed micro-panel (see f32_gemm_pack.h): element (i, k) at a[k * MR + i],
//      i < MR. Rows i >= mr are read but must be finite (the packer zero-fills them).
//      Rows-A kernels (F32GemmKernel::rows_a) also take A in place from a row-major matrix
//      when params->a_stride != 0: element (i, k) at a[i * a_stride + k], only rows i < mr
//      read (no packing, no padded rows). The sums are the same, in the same order.
//   B  row k starts at b + k * b_stride and holds the columns [0, nc); nc <= NR. Only those
//      columns are read, so B may be a packed panel (b_stride == NR) or any row-major
//      matrix read in place (b_stride == ldb).
//      Split-B kernels (F32GemmKernel::split_b) take the columns [NR/2, NR) from a second
//      pointer when params->b_split != 0 (two NR/2-wide prepacked panels side by side).
//   C  element (i, j) at c[i * c_stride + j]; only i < mr, j < nc are touched.
// The result written is
//   t = alpha * sum_k A(i,k) B(k,j) + (accumulate ? C(i,j) : bias_m[i] + bias_n[j])
//   C(i,j) = clamp ? min(max(t, min), max) : t
// with absent biases counting as 0, summed in this order (every kernel, whatever its tile
// shape, and every tail of it gives the same bits; F32GemmUkernelReference spells it out):
//   r = accumulate ? C(i,j) : bias_m[i] + bias_n[j]
//   for each sum group, the steps [k0, k0 + kF32GemmSumGroup) of [0, kc) in turn:
//     for each sum block of the group, its steps [k1, k1 + kF32GemmSumBlock) in turn:
//       s = 0; for k in the block: s = fma(A(i,k), B(k,j), s)   (one rounding per step)
//       g = first block of the group ? s : g + s
//     r = r + alpha * g                                          (alpha * g rounded first)
//   C(i,j) = clamp ? min(max(r, min), max) : r    (max/min as the vector instructions: the
//                                                  second operand on equality or NaN)
// The portable row rounds each product before adding it instead (s = s + A*B, no FMA on its
// baseline ISA; F32GemmProducts::kRounded).
// The driver sets `accumulate` on every K block but the first and `clamp` only on the last
// one, so the activation sees the full sum; its K blocks are multiples of the sum group, so a
// whole GEMM sums each element in groups and blocks counted from k = 0 (from each group's first
// step for kKnGroups operands), whichever kernel, tile, tail, K block or thread computes it.
// The three levels keep the float32 error of long reductions low: a sum of K terms is about
// 128 + 4 + K / 512 roundings deep instead of K (docs/accuracy.md).
#pragma once

#include <cstddef>

namespace vt::kernels {

// Reduction steps summed from zero in one chain (sum block), and steps whose blocks are added
// up before their sum joins the running value of a C element (sum group). Measured against
// float64 on all-positive inputs (docs/accuracy.md), 128 x 4 is more accurate than ONNX
// Runtime's MLAS (256-step blocks added into C) from K = 256 to 16384, where 128-step blocks
// added straight into C were not past K = 4096; the tiles pay one load, add and store of their
// accumulators per block. The driver's K blocks are multiples of the group.
inline constexpr size_t kF32GemmSumBlock = 128;
inline constexpr size_t kF32GemmSumGroup = 4 * kF32GemmSumBlock;

// How a kernel forms the product of a step: fused into the sum (one rounding, FMA hardware), or
// rounded before being added (the portable row, for CPUs without FMA).
enum class F32GemmProducts { kFused, kRounded };

// Per-tile epilogue. Plain data; pointers are already offset to the tile's first row/col.
struct F32GemmTileParams {
  float alpha = 1.0f;
  const float* bias_m = nullptr;  // mr values (per row), or null
  const float* bias_n = nullptr;  // nc values (per column), or null
  bool accumulate = false;        // add to existing C instead of the biases
  bool clamp = false;             // fused min/max activation (Relu, Relu6, Clip)
  float min = 0.0f;
  float max = 0.0f;
  // Hint: B is streamed from memory exactly once (decode against prepacked panels, one M
  // tile), so kernels may prefetch ahead of it. Never changes the result.
  bool stream_b = false;
  // 0: A is a packed MR panel. Else (rows-A kernels only) the row stride of A read in place,
  // in floats (>= kc).
  size_t a_stride = 0;
  // 0: row k of B holds the tile's columns as one run. Else (split-B kernels only,
  // F32GemmKernel::split_b) the tile reads two adjacent half-width panels: column j >= NR / 2
  // of row k is at b + b_split + k * b_stride + (j - NR / 2), in floats.
  size_t b_split = 0;
  // 0: one MR panel (mr <= MR). Else (multi-panel kernels only, F32GemmKernel::a_panels > 1)
  // the call covers mr <= a_panels * MR rows from consecutive packed panels this many floats
  // apart: row i is row i % MR of the panel at a + (i / MR) * a_panel_stride (bias_m and C
  // rows as usual, row i at bias_m[i] and c + i * c_stride). The sums are those of one call
  // per panel.
  size_t a_panel_stride = 0;
};

using F32GemmUkernelFn = void (*)(size_t mr, size_t nc, size_t kc, const float* a,
                                  const float* b, size_t b_stride, float* c, size_t c_stride,
                                  const F32GemmTileParams* params);

// Scalar reference twin of any MR x NR kernel: same contract (A packed, several panels with
// params->a_panel_stride != 0, or, with params->a_stride != 0, read in place), plain loops in the summation order above, with the
// products of the kernel's row (F32GemmKernel::products). Tests compare every table kernel
// against it bit for bit.
void F32GemmUkernelReference(size_t MR, size_t NR, size_t mr, size_t nc, size_t kc,
                             const float* a, const float* b, size_t b_stride, float* c,
                             size_t c_stride, const F32GemmTileParams* params,
                             F32GemmProducts products);

// Portable fallback (plain C++, vectorised by the compiler for the baseline ISA).
void f32_gemm_4x16_scalar(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params);

// AVX2 + FMA (f32_gemm_avx2.cc, compiled with -mavx2 -mfma).
void f32_gemm_6x16_avx2(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                        size_t b_stride, float* c, size_t c_stride,
                        const F32GemmTileParams* params);

// AVX-512F (f32_gemm_avx512.cc, compiled with -mavx512f -mavx512bw -mavx512vl -mfma).
void f32_gemm_8x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params);
void f32_gemm_12x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                           size_t b_stride, float* c, size_t c_stride,
                           const F32GemmTileParams* params);
void f32_gemm_6x64_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params);
void f32_gemm_8x48_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params);
// Decode tiles (M <= 4, weights streamed from memory once): several k phases in flight and a
// software prefetch ahead of the panel (same contract).
void f32_gemm_1x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params);
void f32_gemm_2x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params);
void f32_gemm_4x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params);
// Narrow tiles (NR = 4) vectorised along M, for GEMMs with 1-4 columns (same contract).
void f32_gemm_8x4_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                         size_t b_stride, float* c, size_t c_stride,
                         const F32GemmTileParams* params);
void f32_gemm_12x4_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params);
void f32_gemm_14x4_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                          size_t b_stride, float* c, size_t c_stride,
                          const F32GemmTileParams* params);
void f32_gemm_14x32_avx512(size_t mr, size_t nc, size_t kc, const float* a, const float* b,
                           size_t b_stride, float* c, size_t c_stride,
                           const F32GemmTileParams* params);

}  // namespace vt::kernels
