// Decode GEMM with int4 block-quantized weights (issue #6 items 1-2; DESIGN §2 "Encoding":
// q4_0, q4_k):
//
//   Y[M, N] = X[M, K] * W^T + bias[N]
//
// X is f32, element (m, k) at x[m * ldx + k] (ldx >= K). W is the logical [N, K] weight (N
// output channels, K the reduction), packed by q4_pack.h with the kernel's panel height
// (`kernel.rows`) in kernel-feed order, i.e. the bytes of
// vt::BlockQuantizedWeight(N, K, enc, BlockOrder::kInputBlockMajor, kernel.rows).
// Y element (m, n) at y[m * ldy + n] (ldy >= N), overwritten. bias has N floats or is null.
//
// Algorithm: each weight block is widened in registers to exact f32 levels and multiplied
// into f32 accumulators with FMA; activations stay f32 (no activation quantization error, and
// the result is checked against an f32 reference twin). At M = 1, K = N = 4096 the AVX-512 row
// reads weights at 8.4 GB/s single-threaded, 0.77x a prefetching sequential read and 1.3x a
// plain one (vt_q4_gemm_bench, Xeon with AVX-512 VNNI); an int8-activation VNNI row
// (vpdpbusd) is not implemented yet and would mainly help M = 8, which is compute-bound here.
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
