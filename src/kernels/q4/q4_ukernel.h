// Block-quantized int4 weight x f32 activation GEMM microkernels (issue #6 items 1-2; DESIGN §2
// "Encoding": q4_0 and q4_k in include/vtensor/layout/encoding.h).
//
// Contract shared by every `gemm_<weight>_f32_<MR>x<ROWS>_<isa>` kernel (XNNPACK-style: pointers
// and strides in, no allocation, no threads, no framework types):
//   x  mr <= MR activation rows; row i holds kb * E floats at x + i * ldx, where E is the block
//      size along K (32 for q4_0, 256 for q4_k). The caller zero-fills the columns past the
//      logical K (so padded weight blocks meet zeros).
//   w  one weight panel in kernel-feed order (BlockQuantizedWeight(..., kInputBlockMajor, ROWS)):
//      for each input block b < kb, the ROWS blocks of output rows 0..ROWS-1 back to back
//      (block (r, b) at w + (b * ROWS + r) * block_bytes). Padded rows decode to 0.
//   y  element (i, r) at y[i * ldy + r] for i < mr, r < nc (nc <= ROWS); nothing else is
//      written. y(i, r) = bias[r] + sum_k x(i, k) * W(r, k), with W decoded exactly as the
//      encoding's traits decode it; bias may be null (then 0).
// Kernels differ from the reference twin only in rounding: the decoded weights d*(q-8) (q4_0)
// and d*sc*q - dmin*m (q4_k) are exact f32 values in every kernel; the sums are taken in other
// orders, and the q4_0 AVX-512 M=1 path multiplies the block scale after each 32-element
// partial dot (two more roundings per block). Every row satisfies
//   |y - y_ref| <= 2 * (K' + 16) * 2^-24 * sum_k |x(i,k) * W(r,k)|   (K' = K padded to blocks),
// the standard bound for differently ordered f32 sums of the same products (tested). Denormal
// inputs follow the caller's MXCSR (the driver flushes them to zero).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt::kernels {

// Largest number of activation rows one microkernel call takes (decode: M = 1..8).
constexpr size_t kQ4MaxMr = 8;

using Q4GemmUkernelFn = void (*)(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                                 const uint8_t* w, const float* bias, float* y, size_t ldy);

// ---- q4_0: 18-byte blocks of 32 (f16 d, 16 bytes of nibbles), x = d * (q - 8) ----

// Scalar reference twin of every q4_0 kernel with panel height `rows`: decodes each block
// with the encoding's formula and accumulates sum_k x*w in f32 in increasing k order, then
// adds the bias.
void Q4_0GemmReference(size_t rows, size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                       const uint8_t* w, const float* bias, float* y, size_t ldy);

// Portable row (plain C++, baseline ISA), panel height 8.
void gemm_q4_0_f32_8x8_scalar(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                              const uint8_t* w, const float* bias, float* y, size_t ldy);
// AVX2 + FMA + F16C (q4_0_gemm_avx2.cc), panel height 8: nibbles widened to f32 in registers.
void gemm_q4_0_f32_8x8_avx2(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                            const uint8_t* w, const float* bias, float* y, size_t ldy);
// AVX-512F/BW/VL (q4_0_gemm_avx512.cc), panel height 16: nibbles widened to f32 in registers.
void gemm_q4_0_f32_8x16_avx512(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                               const uint8_t* w, const float* bias, float* y, size_t ldy);

// ---- q4_k: 144-byte super-blocks of 256, x = d * sc_j * q - dmin * m_j per sub-block j ----

// Scalar reference twin of every q4_k kernel with panel height `rows` (same rules as above).
void Q4_KGemmReference(size_t rows, size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                       const uint8_t* w, const float* bias, float* y, size_t ldy);

// Portable row, panel height 8.
void gemm_q4_k_f32_8x8_scalar(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                              const uint8_t* w, const float* bias, float* y, size_t ldy);
// AVX-512F/BW/VL (q4_k_gemm_avx512.cc), panel height 16.
void gemm_q4_k_f32_8x16_avx512(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                               const uint8_t* w, const float* bias, float* y, size_t ldy);

}  // namespace vt::kernels
