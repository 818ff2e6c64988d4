// Decode GEMM with int4 block-quantized weights (docs/design.md §2
// "Encoding": q4_0, q4_k):
//
//   Y[M, N] = X[M, K] * W^T + bias[N]
//
// X is f32, element (m, k) at x[m * ldx + k] (ldx >= K). W is the logical [N, K] weight (N
// output channels, K the reduction), packed by q4_pack.h with the kernel's panel height
// (`kernel.rows`) in kernel-feed order, i.e. the bytes of
// vt::BlockQuantizedWeight(N, K, enc, BlockOrder::kInputBlockMajor, kernel.rows).
// Y element (m, n) at y[m * ldy + n] (ldy >= N), overwritten. bias has N floats or is null.
//
// Algorithm, f32 rows ("gemm_q4_0_f32_*", every q4_k row): each weight block is widened in
// registers to exact f32 levels and multiplied into f32 accumulators with FMA; activations
// stay f32 (no activation quantization error; checked against an f32 reference twin). At
// M = 1, K = N = 4096 the AVX-512 f32 row reads weights at about 0.58x a prefetching AVX-512
// sequential read (port-5 bound), 0.2x at M = 4.
// q8 row ("gemm_q4_0_q8_8x16_avx512vnni", first in the q4_0 table, panel height 16 like the
// f32 AVX-512 row): the driver first quantizes each 32-element activation block to int8 with
// its own f32 scale (amax / 127; exact definition in q4_ukernel.h, |x - d q| <= 0.5001 d), and
// the kernel takes exact int32 block dots with vpdpbusd, scaled in f32; the result is
// bit-identical to its q8 reference twin. It prefetches each weight line twice, 2 KiB ahead
// into L1 and 12 KiB ahead into L2 (the L1 prefetch alone left it at 0.77x). vt_q4_gemm_bench,
// Xeon (Sapphire Rapids), single thread, K = N = 4096, weights from DRAM: 0.91x the AVX-512
// prefetching read floor (kbench's) at M = 1, 0.68x at M = 4, 0.46x at M = 8 (f32 row in the
// same run: 0.58x, 0.21x, 0.12x); kbench int4 row: 0.92x. Pick the f32 row with
// VT_Q4_GEMM_KERNEL=avx512 where activation quantization is not acceptable.
//
// Any M: rows are taken 8 at a time (kQ4MaxMr). Any N and K: K not a multiple of the block
// size is handled by copying X into a zero-padded buffer. threads > 1 splits the weight panels
// over OpenMP threads; every Y element is reduced by one thread in one fixed order, so the
// result does not depend on the thread count. Each row of Y equals the reference twin
// (q4_ukernel.h) within the bound stated there. Subnormals are flushed to zero while the
// kernels run.
// Preconditions (programming errors, asserted): w_packed holds Q4_*PackedBytes(N, K,
// kernel.rows) bytes, kernel belongs to the matching family's table.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/q4/q4_gemm_table.h"
#include "kernels/q4/q4_pack.h"

namespace vt::kernels {

void Q4_0Gemm(const Q4GemmKernel& kernel, size_t M, size_t N, size_t K, const float* x,
              size_t ldx, const uint8_t* w_packed, const float* bias, float* y, size_t ldy,
              int threads = 1);

void Q4_KGemm(const Q4GemmKernel& kernel, size_t M, size_t N, size_t K, const float* x,
              size_t ldx, const uint8_t* w_packed, const float* bias, float* y, size_t ldy,
              int threads = 1);

}  // namespace vt::kernels
