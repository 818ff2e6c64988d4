// Packing MatMulNBits planes into kernel-feed panels (nbits_ukernel.h).
//
// Every plane of a MatMulNBits weight is a row-major matrix of `n` rows (output channels) and
// `cols` units of `unit_bytes` bytes each:
//   codes          cols = kb blocks, unit = bs * bits / 8 bytes   (B [N, kb, blob])
//   scales         cols = kb,        unit = 4 (f32)               (scales [N, kb] or [N * kb])
//   zero points    cols = ceil(kb * bits / 8), unit = 1 (uint8), or cols = kb, unit = 4 (f32)
// The panel form of a plane stores, for each panel p of kNBitsRows rows, for each column c,
// the kNBitsRows units (rows p * 16 .. p * 16 + 15) back to back:
//   dst unit (p, c, r) at ((p * cols + c) * kNBitsRows + r) * unit_bytes
// Rows past n hold zero bytes. A pure byte permutation: lossless, deterministic, and exactly
// the Layout the weight-form resolver records (src/forms/rows/nbits_panels.cc).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt::kernels {

// Bytes of a packed plane: ceil(n / 16) * 16 * cols * unit_bytes.
size_t NBitsPanelBytes(size_t n, size_t cols, size_t unit_bytes);

// Packs `src` (n * cols * unit_bytes bytes, row-major) into `dst` (NBitsPanelBytes bytes),
// each panel written front to back, panels split over OpenMP threads
// (kernels/cpu/parallel_pack.h; the same bytes for every thread count).
void PackNBitsRowsToPanels(size_t n, size_t cols, size_t unit_bytes, const uint8_t* src,
                           uint8_t* dst);
// Scalar reference twin, byte by byte.
void PackNBitsRowsToPanelsReference(size_t n, size_t cols, size_t unit_bytes, const uint8_t* src,
                                    uint8_t* dst);

}  // namespace vt::kernels
