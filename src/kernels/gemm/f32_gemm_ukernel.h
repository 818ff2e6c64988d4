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
// with absent biases counting as 0. The driver sets `accumulate` on every K block but the
// first and `clamp` only on the last one, so the activation sees the full sum.
#pragma once

#include <cstddef>

namespace vt::kernels {

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
};

using F32GemmUkernelFn = void (*)(size_t mr, size_t nc, size_t kc, const float* a,
                                  const float* b, size_t b_stride, float* c, size_t c_stride,
                                  const F32GemmTileParams* params);

// Scalar reference twin of any MR x NR kernel: same contract (A packed or, with
// params->a_stride != 0, read in place), plain loops, float accumulation in k order. Tests
// compare every table kernel against it.
void F32GemmUkernelReference(size_t MR, size_t NR, size_t mr, size_t nc, size_t kc,
                             const float* a, const float* b, size_t b_stride, float* c,
                             size_t c_stride, const F32GemmTileParams* params);

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
