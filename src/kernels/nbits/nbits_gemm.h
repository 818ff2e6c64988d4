// Decode GEMM over MatMulNBits (bits = 4) kernel-feed panels:
//
//   Y[M, N] = X[M, K] * W^T + bias[N],   W(n, k) = (u(n, k) - zp(n, k / bs)) * scale(n, k / bs)
//
// X is f32, element (m, k) at x[m * ldx + k] (ldx >= K), in logical order: the driver reorders
// each row into the kernels' pair order and zero-pads K to whole blocks (K <= kb * bs). `w`
// points to panel 0 of each plane (nbits_ukernel.h, packed by nbits_pack.h), kb = ceil(K / bs).
// Y element (m, n) at y[m * ldy + n], overwritten. bias has N floats or is null. bs is a
// multiple of 32. M rows are taken kernel.mr at a time inside each panel, so a panel's bytes
// are read from memory once per call. threads > 1 splits the panels over OpenMP threads; every
// Y element is reduced by one thread in a fixed order, so the result does not depend on the
// thread count. f32 rows: each Y row is within the twin's bound (nbits_ukernel.h). q8 rows
// (accuracy_level 4): the driver quantizes the pair-ordered activations with NBitsQuantizeXQ8
// (one scale per weight block), and the result is bit-identical to NBitsQ8GemmReference on
// those blocks. From kNBitsTileMinRows rows on, a q8 row with a tile pair unpacks each panel
// once per call into a per-thread buffer of NBitsUnpackedBytes(kb, bs) bytes and runs the tile
// (same bits).
// Subnormals are flushed to zero while the kernels run.
// Preconditions (programming errors, asserted): bs % 32 == 0, K <= kb * bs.
#pragma once

#include <cstddef>

#include "kernels/nbits/nbits_gemm_table.h"

namespace vt::kernels {

void NBitsGemm(const NBitsGemmKernel& kernel, size_t M, size_t N, size_t K, size_t bs,
               const float* x, size_t ldx, const NBitsPanel& w, const float* bias, float* y,
               size_t ldy, int threads = 1);

}  // namespace vt::kernels
