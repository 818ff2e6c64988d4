// Packing of int8 GEMM operands into the VNNI panel layout the microkernels read
// (int8_gemm_ukernel.h).
//
// Weight panels (the physical form a weight cache persists; no header): the logical s8 matrix
// W[K, N] is cut into ceil(N / NR) panels of NR consecutive columns (NR = the kernel's NR). K is
// rounded up to KG = ceil(K / 4) groups of 4 (vpdpbusd multiplies 4 consecutive k of one column
// in one int32 lane). Panel p occupies PanelBytes = NR * (4 * KG + 4) bytes at byte offset
// p * PanelBytes:
//   bytes [0, 4 * KG * NR):      W(4g + j, p * NR + n) at byte (g * NR + n) * 4 + j
//   bytes [4 * KG * NR, end):    NR little-endian int32 column sums, sum_k W(k, p * NR + n)
// Elements past K or N are zero (so are their column sums). The column sums are the
// compensation term: the kernels subtract a_offset * column_sum (128 for s8 activations), which
// makes u8 x s8 hardware compute an exact s8 x s8 (or zero-pointed u8 x s8) product.
// With NR a multiple of 16, every panel and its sums start 64-byte aligned.
//
// Activation panels: A[M, K] is cut into ceil(M / MR) panels of MR rows; byte j of group g of
// row i of panel q at q * MR * 4 * KG + (g * MR + i) * 4 + j (zero tail). s8 activations are
// stored as u8 = s8 + 128.
//
// Names say the source layout and the destination: `Kn` = row-major [K, N] (ONNX MatMulInteger
// B), `Nk` = row-major [N, K] (each output column's weights contiguous; Gemm with transB=1),
// `Mk` = row-major activations [M, K].
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "vtensor/base/aligned_alloc.h"

namespace vt::kernels {

// Bytes of one weight panel of width nr over K (see above).
inline size_t Int8VnniPanelBytes(size_t nr, size_t K) { return nr * (4 * ((K + 3) / 4) + 4); }
// Bytes of all weight panels for N columns.
inline size_t Int8VnniPanelsSize(size_t nr, size_t K, size_t N) {
  return (N + nr - 1) / nr * Int8VnniPanelBytes(nr, K);
}
// Bytes of the activation panels for M rows at height mr.
inline size_t Int8VnniActivationPanelsSize(size_t mr, size_t M, size_t K) {
  return (M + mr - 1) / mr * mr * 4 * ((K + 3) / 4);
}

// s8 W[K, N] row-major (row stride ldw elements) -> weight panels of width nr (nr a multiple of
// 16 for aligned panels, any nr >= 1 accepted) at `dst` (Int8VnniPanelsSize bytes).
void PackS8KnToVnniPanels(size_t nr, size_t K, size_t N, const int8_t* w, size_t ldw, void* dst);
// s8 W given as [N, K] row-major (row stride ldw) -> the same panels.
void PackS8NkToVnniPanels(size_t nr, size_t K, size_t N, const int8_t* w, size_t ldw, void* dst);
// u8 A[M, K] row-major (row stride lda) -> activation panels of height mr.
void PackU8MkToVnniPanels(size_t mr, size_t M, size_t K, const uint8_t* a, size_t lda,
                          uint8_t* dst);
// s8 A[M, K] row-major -> activation panels of height mr holding a + 128 (as u8).
void PackS8MkToVnniPanels(size_t mr, size_t M, size_t K, const int8_t* a, size_t lda,
                          uint8_t* dst);

// Prepacked weights: the panels of one s8 matrix for kernels with NR == nr. Owned, 64-byte
// aligned; movable, not copyable.
struct Int8Panels {
  size_t nr = 0;  // panel width
  size_t k = 0;   // logical K
  size_t n = 0;   // logical N

  size_t k_groups() const { return (k + 3) / 4; }
  size_t num_panels() const { return nr == 0 ? 0 : (n + nr - 1) / nr; }
  size_t panel_bytes() const { return Int8VnniPanelBytes(nr, k); }
  size_t size_bytes() const { return num_panels() * panel_bytes(); }
  const int8_t* panel(size_t p) const { return data.get() + p * panel_bytes(); }
  const int32_t* column_sums(size_t p) const {
    return reinterpret_cast<const int32_t*>(panel(p) + 4 * k_groups() * nr);
  }

  AlignedArray<int8_t> data;
};

// Allocates and fills Int8Panels. Throws std::bad_alloc when out of memory.
Int8Panels MakeInt8PanelsFromKn(size_t nr, size_t K, size_t N, const int8_t* w, size_t ldw);
Int8Panels MakeInt8PanelsFromNk(size_t nr, size_t K, size_t N, const int8_t* w, size_t ldw);

}  // namespace vt::kernels
