// The MatMulNBits (bits = 4) GEMM kernel table: one row per microkernel (nbits_ukernel.h). The
// same rows drive run-time dispatch, the unit tests (every row against the reference twin) and
// the benchmark. Every row reads the same panels (kNBitsRows high), so a
// weight packed once runs on any row.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {

struct NBitsGemmKernel {
  // "gemm_nbits4_<f32|q8>_<MR>x16_<isa>": f32 = f32 activations; q8 = activations quantized to
  // int8 per 32-element chunk first (MatMulNBits accuracy_level 4; nbits_ukernel.h).
  const char* name;
  const char* isa;   // "avx512vnni", "avx512", "avx2", "portable"
  size_t mr;         // most activation rows per call (kNBitsMaxMr)
  NBitsGemmUkernelFn ukernel;  // f32 rows; null on q8 rows
  bool (*supported)();  // run-time CPU (and OS state) check
  NBitsGemmQ8UkernelFn q8_ukernel = nullptr;  // q8 rows (activations by NBitsQuantizeXQ8)
  // q8 rows with a tile pair (nbits_ukernel.h, "q8 tile rows"): the driver runs calls of
  // M >= kNBitsTileMinRows through it (bit-identical to q8_ukernel); null: q8_ukernel always.
  NBitsUnpackQ8Fn q8_unpack = nullptr;
  NBitsGemmQ8TileFn q8_tile = nullptr;
  // q8 rows: the activation quantizer of the row's ISA (every one gives the same blocks).
  NBitsQuantizeQ8Fn q8_quantize = nullptr;
};

// Fewest activation rows for which the driver unpacks a panel for the tile pair. The unpack
// streams the codes and then the tile computes, where the MR-row microkernel overlaps the two,
// and on the AVX-512 VNNI machine of docs/genai.md both spend the same 8 vpdpbusd per row and
// chunk, which bound them: vtensor-kbench nbits4_q8 (K = N = 4096, CPU ms, /ours tile vs /rows)
// M = 128 17.6 vs 20.8 (median of 6 interleaved), M = 32 5.9 vs 4.4, M = 16 3.0 vs 2.5,
// M = 2 1.34 vs 0.66.
constexpr size_t kNBitsTileMinRows = 64;

// All rows: the q8 rows first, then the f32 rows fastest first; the last row is portable.
std::span<const NBitsGemmKernel> NBitsGemmKernels();
// Row by name, or null.
const NBitsGemmKernel* FindNBitsGemmKernel(std::string_view name);
// The f32-activation row used by default, chosen once per process: the first supported f32
// row, unless the environment variable VT_NBITS_GEMM_KERNEL names a supported f32 row or ISA.
const NBitsGemmKernel& DefaultNBitsGemmKernel();
// The int8-activation row for accuracy_level 4: the first supported q8 row (the portable
// q8 row, the twin, where the CPU has no VNNI), or VT_NBITS_Q8_GEMM_KERNEL's choice.
const NBitsGemmKernel& DefaultNBitsQ8GemmKernel();
// The row for a session whose kernels are capped at ISA level `isa` ("avx512", "avx2",
// "portable"): the default row if it belongs to that level or below, else the first
// supported row at or below it (f32 rows, or q8 rows when `q8`).
const NBitsGemmKernel& NBitsGemmKernelForIsa(std::string_view isa, bool q8);
const NBitsGemmKernel& PortableNBitsGemmKernel();
const NBitsGemmKernel& PortableNBitsQ8GemmKernel();

}  // namespace vt::kernels
