// Block-quantized int4 weight x f32 activation GEMM microkernels (docs/design.md §2
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

// ---- int8-activation (q8) rows ----
//
// Rows whose table entry has a `quantize_x` (isa "avx512vnni") do not read f32 activations in
// the microkernel: the driver first quantizes every activation row, once per call, into one
// 64-byte Q4Q8Block per 32-element block (K zero-padded to whole blocks), defined exactly as
//   amax = max_k |x_k|,  d = amax / 127 (f32 division, round to nearest even),
//   q_k  = d == 0 ? 0 : nearbyint(x_k / d) (f32 division, then round half to even) in [-127, 127]
// (computed under the caller's MXCSR; the driver runs it with FTZ|DAZ like the kernels, so a
// block whose d is subnormal becomes all zeros). Activations must be finite (a NaN or Inf
// activation gives unspecified, but defined, outputs). The q8 microkernel then computes, for
// activation row i, weight row r and input block b with weight scale dw and nibbles u_k:
//   dot_b = sum_k q_k * u_k + neg8sum   (exact int32; neg8sum = -8 * sum_k q_k, so
//                                        dot_b = sum_k q_k * (u_k - 8))
//   y(i, r) = bias[r] + sum_b f32(dw * d) * dot_b    (the sum in f32)
// i.e. the exact product of the q4_0 weights with the dequantized activations d * q_k, up to
// f32 rounding: |x_k - d * q_k| <= 0.5001 * d per element.
struct alignas(64) Q4Q8Block {
  int8_t q[32];        // q_k, k = 0..31
  int32_t neg8sum[4];  // {-8 * sum_k q_k, 0, 0, 0}: the q4_0 zero point folded into the dot
  float d;             // amax / 127, or 0
  uint8_t pad[12];     // zero
};
static_assert(sizeof(Q4Q8Block) == 64);

// Quantizes activations: row i of X (k floats at x + i * ldx) into ceil(k / 32) blocks at
// xq + i * ceil(k / 32); columns past k count as zeros.
using Q4QuantizeXFn = void (*)(size_t m, size_t k, const float* x, size_t ldx, Q4Q8Block* xq);

// q8 microkernel: as Q4GemmUkernelFn, but activation row i is the kb blocks at xq + i * ldxq.
using Q4GemmQ8UkernelFn = void (*)(size_t mr, size_t nc, size_t kb, const Q4Q8Block* xq,
                                   size_t ldxq, const uint8_t* w, const float* bias, float* y,
                                   size_t ldy);

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

// Scalar reference twin of the q4_0 q8 rows: Q4Q8Block quantization exactly as specified
// above (the AVX-512 quantizer must produce identical bytes), and the q8 product: per block
// the exact integer dot_b, then s_b = f32(dw * d), term_b = f32(dot_b * s_b),
// acc = f32(acc + term_b) in increasing b order from 0, y = f32(acc + bias). The q8 rows take
// exactly these roundings in this order, so they are bit-identical to the twin (when, as in
// the driver, FTZ|DAZ is set and the data keep every product and sum normal); a future q8 row
// that sums in another order must stay within, with P_b = |s_b| * 23 * sum_k |q_k|,
//   |y - y_ref| <= 2 * (kb + 8) * 2^-24 * sum_b P_b   (+ 2^-23 * |bias| for the bias add).
void Q4_0QuantizeXQ8Reference(size_t m, size_t k, const float* x, size_t ldx, Q4Q8Block* xq);
void Q4_0Q8GemmReference(size_t rows, size_t mr, size_t nc, size_t kb, const Q4Q8Block* xq,
                         size_t ldxq, const uint8_t* w, const float* bias, float* y, size_t ldy);

// AVX-512F/BW/VL/DQ + VNNI + VBMI (q4_0_gemm_avx512vnni.cc), panel height 16: q8 row.
// Four weight blocks per zmm (vpermt2b gathers their nibbles), vpdpbusd against the int8
// activations, the 16 exact block dots of an input block reduced into one zmm.
void Q4_0QuantizeXQ8Avx512(size_t m, size_t k, const float* x, size_t ldx, Q4Q8Block* xq);
void gemm_q4_0_q8_8x16_avx512vnni(size_t mr, size_t nc, size_t kb, const Q4Q8Block* xq,
                                  size_t ldxq, const uint8_t* w, const float* bias, float* y,
                                  size_t ldy);

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
