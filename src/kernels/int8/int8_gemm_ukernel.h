// int8 GEMM microkernels: the innermost tile C[mr x nc] (+)= A[mr x 4*kg] * B[4*kg x nc], with
// u8 activations (A), s8 weights (B) and exact int32 accumulation.
//
// Contract shared by every `gemm_s8_u8_<MR>x<NR>_<isa>` kernel (XNNPACK-style: pointers in,
// no allocation, no threads, no framework types). K is processed in groups of 4 (the unit of
// AVX-512 VNNI vpdpbusd: four u8 x s8 products summed into one int32 lane):
//   A  one packed micro-panel (int8_gemm_pack.h): byte j of group g of row i at
//      a[(g * MR + i) * 4 + j], i < MR. Rows i >= mr are read (the packer zero-fills them).
//   B  one packed NR-wide panel block: byte j of group g of column n at b[(g * NR + n) * 4 + j].
//      Columns n >= nc are read (the packer zero-fills them).
//   C  element (i, n) at c[i * c_stride + n] (4-byte elements: int32, or float when the tile
//      dequantizes); only i < mr, n < nc are touched.
// With acc(i, n) = sum_{g<kg, j<4} A(i, 4g+j) * B(4g+j, n) (exact in int32 for K <= 2^16 at any
// byte values; 255 * 128 * 4 per group cannot saturate or wrap), the tile computes
//   s = acc + (accumulate ? C_s32(i, n) : -a_offset * column_sums[n])
//   C(i, n) = dequantize ? float(s) * scale_a * scale_n[n] + (bias_n ? bias_n[n] : 0)  (float)
//                        : s                                                            (int32)
// `a_offset` is the activation zero point as seen by the kernel: z for u8 activations with zero
// point z, 128 + z for s8 activations (the A packer adds 128 to make them u8), so the result is
// the exact sum of (a - z) * w. The driver sets `accumulate` on every K block but the first and
// `dequantize` only on the last one, so C holds the int32 partial sums in between.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt::kernels {

// Per-tile epilogue. Plain data; pointers are already offset to the tile's first column.
struct Int8GemmTileParams {
  bool accumulate = false;               // add the int32 partial sums already in C
  int32_t a_offset = 0;                  // activation offset (see above); used when !accumulate
  const int32_t* column_sums = nullptr;  // nc values: sum_k B(k, n); null means all zero
  bool dequantize = false;               // write float (needs scale_n) instead of int32
  float scale_a = 1.0f;                  // activation scale (per tensor)
  const float* scale_n = nullptr;        // nc weight scales (per output column)
  const float* bias_n = nullptr;         // nc float biases, or null
};

using Int8GemmUkernelFn = void (*)(size_t mr, size_t nc, size_t kg, const uint8_t* a,
                                   const int8_t* b, void* c, size_t c_stride,
                                   const Int8GemmTileParams* params);

// Scalar reference twin of any MR x NR kernel: same contract, plain loops. Tests compare every
// table kernel against it (bit-exact: the int32 sums are exact and the float epilogue is the
// same expression evaluated in the same order).
void Int8GemmUkernelReference(size_t MR, size_t NR, size_t mr, size_t nc, size_t kg,
                              const uint8_t* a, const int8_t* b, void* c, size_t c_stride,
                              const Int8GemmTileParams* params);

// Portable row (plain C++; the compiler vectorises it for the baseline ISA).
void gemm_s8_u8_4x16_scalar(size_t mr, size_t nc, size_t kg, const uint8_t* a, const int8_t* b,
                            void* c, size_t c_stride, const Int8GemmTileParams* params);

// AVX-512 VNNI (int8_gemm_avx512vnni.cc, compiled with -mavx512f -mavx512bw -mavx512vl
// -mavx512vnni): one vpdpbusd per 16 columns x 4 k per row.
void gemm_s8_u8_8x48_avx512vnni(size_t mr, size_t nc, size_t kg, const uint8_t* a,
                                const int8_t* b, void* c, size_t c_stride,
                                const Int8GemmTileParams* params);
void gemm_s8_u8_12x32_avx512vnni(size_t mr, size_t nc, size_t kg, const uint8_t* a,
                                 const int8_t* b, void* c, size_t c_stride,
                                 const Int8GemmTileParams* params);
void gemm_s8_u8_6x64_avx512vnni(size_t mr, size_t nc, size_t kg, const uint8_t* a,
                                const int8_t* b, void* c, size_t c_stride,
                                const Int8GemmTileParams* params);

}  // namespace vt::kernels
