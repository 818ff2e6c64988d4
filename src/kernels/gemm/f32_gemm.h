// Blocked f32 GEMM driver: C[M, N] = epilogue(alpha * op(A)[M, K] * op(B)[K, N] + init).
//
// The driver cuts the problem into cache blocks (N by NC, K by KC, M by MC), packs the operands
// that are not already in panel form (f32_gemm_pack.h) and calls one table microkernel
// (f32_gemm_table.h) per MR x NR tile. B may be prepacked panels (constant weights), a plain
// matrix, or a callback that produces panel blocks on demand (im2col for Conv). With
// threads > 1 the tiles are split over OpenMP threads. Each C element is summed in the order of
// f32_gemm_ukernel.h, with sum blocks counted from k = 0 (for a kKnGroups operand, from each
// group's first step), so the result depends neither on the thread count nor on which kernel
// row of the same products (F32GemmKernel::products), tile or tail computes the element:
// constant weights give bit-identical columns. Subnormal operands and results are flushed to
// zero while the microkernels run (kernels/cpu/flush_denormals.h).
#pragma once

#include <cstddef>

#include "kernels/gemm/f32_gemm_pack.h"
#include "kernels/gemm/f32_gemm_table.h"

namespace vt::kernels {

// Left operand, logical shape [M, K].
struct F32GemmA {
  enum class Kind {
    kMk,      // A(m, k) = data[m * ld + k]
    kKm,      // A(m, k) = data[k * ld + m]   (transposed storage)
    kPanels,  // `panels`, width == kernel.mr, extent >= M, k == K
  };
  Kind kind = Kind::kMk;
  const float* data = nullptr;
  size_t ld = 0;
  const F32Panels* panels = nullptr;
};

// Fills `dst` with the block rows [k0, k0+kc) x columns [n0, n0+nc) of B as ceil(nc/nr)
// panels of kc*nr floats each (layout of f32_gemm_pack.h, zero tail). Must be thread-safe.
using F32GemmPackBlockFn = void (*)(const void* ctx, size_t k0, size_t kc, size_t n0, size_t nc,
                                    size_t nr, float* dst);
// First row of row group `group` of a kKnGroups operand.
using F32GemmGroupRowsFn = const float* (*)(const void* ctx, size_t group);

// Right operand, logical shape [K, N].
struct F32GemmB {
  enum class Kind {
    kKn,        // B(k, n) = data[k * ld + n]
    kNk,        // B(k, n) = data[n * ld + k]   (transposed storage)
    kPanels,    // `panels`, width == kernel.nr (or nr / 2 for a split_b kernel), extent >= N, k == K
    kCallback,  // `pack(ctx, ...)`
    kKnGroups,  // B(k, n) = rows(ctx, k / group_rows)[(k % group_rows) * ld + n]
  };
  Kind kind = Kind::kKn;
  const float* data = nullptr;
  size_t ld = 0;
  const F32Panels* panels = nullptr;
  F32GemmPackBlockFn pack = nullptr;
  const void* ctx = nullptr;
  F32GemmGroupRowsFn rows = nullptr;
  size_t group_rows = 0;
  // kKn / kKnGroups: copy blocks into panels instead of letting the microkernel read the rows
  // in place (in place is the default: no copy, and the rows stay cache-resident across the
  // MR tiles that share them). The driver packs regardless when `ld` is a multiple of 4 KiB
  // with M >= 32 and K > 256 (rows that share their L1 sets evict one another: half the speed
  // at 1024^3).
  bool pack_rows = false;
};

// What is added to alpha*A*B and the fused activation.
struct F32GemmEpilogue {
  float alpha = 1.0f;
  const float* bias_m = nullptr;  // [M] per-row bias, or null
  const float* bias_n = nullptr;  // [N] per-column bias, or null
  bool accumulate = false;        // C already holds the initial values (biases ignored)
  bool clamp = false;             // min/max activation on the final value
  float min = 0.0f;
  float max = 0.0f;
};

// C element (m, n) at c[m * ldc + n]. M, N or K may be 0 (K == 0 writes just the epilogue).
// Preconditions (programming errors, asserted): panel widths match `kernel`.
void F32Gemm(const F32GemmKernel& kernel, size_t M, size_t N, size_t K, const F32GemmA& a,
             const F32GemmB& b, float* c, size_t ldc, const F32GemmEpilogue& epilogue,
             int threads = 1);

// Same with DefaultF32GemmKernel().
void F32Gemm(size_t M, size_t N, size_t K, const F32GemmA& a, const F32GemmB& b, float* c,
             size_t ldc, const F32GemmEpilogue& epilogue, int threads = 1);

}  // namespace vt::kernels
