// The f32 GEMM kernel table: one row per microkernel. The same rows drive run-time dispatch,
// the unit tests (every row against the scalar reference twin) and the benchmark.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "kernels/gemm/f32_gemm_ukernel.h"

namespace vt::kernels {

struct F32GemmKernel {
  const char* name;  // "f32_gemm_<MR>x<NR>_<isa>"
  size_t mr;         // rows per tile (A panel width)
  size_t nr;         // columns per tile (B panel width)
  const char* isa;   // "avx512", "avx2", "portable"
  F32GemmUkernelFn ukernel;
  bool (*supported)();  // run-time CPU (and OS state) check
  // The ukernel also reads A in place from its rows (F32GemmTileParams::a_stride != 0), and
  // the driver does so for row-major A (F32GemmA::Kind::kMk) of GEMMs up to 1024 columns
  // instead of packing it. Set only where that measured faster than packing (6x64: about 1.5%
  // at 1024^3; not the 32- and 48-wide rows).
  bool rows_a = false;
  // The ukernel also reads its columns from two NR/2-wide panels (F32GemmTileParams::b_split),
  // and the driver runs it on B prepacked at half its width (F32GemmKernelForPanels): a wide
  // tile over the narrower panels the weight cache stores.
  bool split_b = false;
  // How the ukernel forms each product (f32_gemm_ukernel.h): fused into the sum on every row
  // but the portable one.
  F32GemmProducts products = F32GemmProducts::kFused;
  // Packed A panels one ukernel call may cover (F32GemmTileParams::a_panel_stride), which the
  // driver then hands it together. The narrow rows (NR 4) take several: one panel gives a
  // narrow tile only NC sum chains (one per column, each step waiting on the previous FMA),
  // too few to cover the FMA latency; panels side by side share each B broadcast and run
  // NC x panels chains.
  size_t a_panels = 1;
};

// All rows, in order of preference (fastest first).
std::span<const F32GemmKernel> F32GemmKernels();

// Row by name, or null.
const F32GemmKernel* FindF32GemmKernel(std::string_view name);

// The kernel used by default, chosen once per process: the first supported row, unless the
// environment variable VT_F32_GEMM_KERNEL names a supported row (any other value is ignored),
// or names an ISA ("avx512", "avx2", "portable") to pick that ISA's first supported row.
const F32GemmKernel& DefaultF32GemmKernel();

// The kernel for a GEMM with M rows when the caller may pick the tile height (A packed per
// call, or prepacked by the caller with the returned kernel): among the supported rows of the
// default kernel's ISA and NR, the one that wastes the fewest padded rows, then the tallest.
// Returns DefaultF32GemmKernel() when VT_F32_GEMM_KERNEL names a kernel.
const F32GemmKernel& F32GemmKernelForM(size_t m);

// The selection rule behind F32GemmKernelForM for any row `base` (for example the first row of
// another ISA, when packing weights for another CPU): among the rows with base's ISA and NR, the
// one wasting the fewest padded rows for `m` rows, then the tallest; rows shorter than base
// only when the GEMM fits one of their tiles. Ignores VT_F32_GEMM_KERNEL and CPU support.
const F32GemmKernel& F32GemmRowForM(const F32GemmKernel& base, size_t m);

// The kernel for a GEMM of `m` rows and `n` columns whose B operand is not prepacked (read in
// place or packed per call, so its panel width is free): the default ISA's widest-NR row when
// the GEMM is large enough to fill its tiles (m >= 4 * its MR and n >= 2 * its NR; measured
// about 5% faster at 1024^3 on AVX-512), else F32GemmKernelForM(m). The rows of an ISA sum each C
// element in the same order (f32_gemm_ukernel.h), so the choice never changes results.
// F32GemmKernelForM(m)
// when VT_F32_GEMM_KERNEL names a kernel.
const F32GemmKernel& F32GemmKernelForUnpackedB(size_t m, size_t n);

// F32GemmKernelForUnpackedB's rule for any supported row `base` (the first row of a session's
// ISA level below the default's): base's ISA's widest-NR row when the GEMM fills its tiles
// (m >= 4 * its MR and n >= 2 * its NR), else F32GemmRowForM(base, m). Ignores
// VT_F32_GEMM_KERNEL.
const F32GemmKernel& F32GemmRowForUnpackedB(const F32GemmKernel& base, size_t m, size_t n);

// The selection rule for a GEMM of `m` rows and `n` columns whose B operand is prepacked in
// panels of base.nr columns (as the runtime packs constant weights for the ISA of `base`, that
// ISA's first row): base's ISA's split-B row of NR 2 * base.nr when the GEMM is large enough
// to fill its tiles (m >= 4 * its MR and n >= 2 * its NR) and it pads M by at most 5% more rows
// than F32GemmRowForM(base, m) does, else F32GemmRowForM(base, m). Measured on AVX-512 (6x64
// over NR 32 panels against the M row, one thread): 1.08x at 1024^3, 1.02-1.24x at M = 24-512,
// 0.94x at M = 32 (36 padded rows against 32: not taken). Ignores VT_F32_GEMM_KERNEL and CPU
// support. The rows of an ISA sum each C element in the same order (f32_gemm_ukernel.h), so
// the choice never changes results.
const F32GemmKernel& F32GemmRowForPanels(const F32GemmKernel& base, size_t m, size_t n);

// The kernel for such a GEMM against panels of the default kernel's NR:
// F32GemmRowForPanels(DefaultF32GemmKernel(), m, n); DefaultF32GemmKernel() when
// VT_F32_GEMM_KERNEL names a kernel (as F32GemmKernelForM).
const F32GemmKernel& F32GemmKernelForPanels(size_t m, size_t n);

// A kernel for GEMMs with at most 4 columns whose A panels were packed for `wide` (its MR): the
// narrow row of wide's ISA with that MR, or null (then keep the wide kernel). Null as well
// when VT_F32_GEMM_KERNEL names a kernel.
const F32GemmKernel* F32GemmNarrowKernel(const F32GemmKernel& wide);

// The portable row (always supported).
const F32GemmKernel& PortableF32GemmKernel();

}  // namespace vt::kernels
