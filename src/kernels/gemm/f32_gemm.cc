#include "kernels/gemm/f32_gemm.h"

#include <omp.h>

#include <algorithm>
#include <cassert>

#include "kernels/cpu/flush_denormals.h"

namespace vt::kernels {
namespace {

// Cache blocking. KC: one sum group (f32_gemm_ukernel.h), so that the tiles' sum groups and
// blocks fall on the same steps whatever the kernel: a kc x NR B micro-panel (64 KiB at
// NR = 32) stays in L2 while the MR-row A micro-panels of the MC x KC block stream past it.
// (The 32-wide rows took 384 before the sum groups; with 512 and the groups, four conv-shaped
// GEMMs on the 8x32 row measured 0.95-1.02x, paired, on a loaded machine.) NC bounds the KC x NC packed B block (in L3); it is large because every NC block
// packs all of A again (at NC = 1024 a 2048^3 GEMM packed A twice).
// Tiles that read A in place from its rows (ReadsARows) pack no A, so NC no longer has to be
// large; a 512-column B block (1 MiB at KC 512) stays in L2 next to a 96-row A block, instead
// of coming back from L3 for every M block. Measured with the 6x64 row, one thread, against
// NC 4096 / MC 384: 1024^3 1.027x (B rows packed per call) and 1.019x (prepacked panels),
// 4096x1024x1024 1.01x.
constexpr size_t kKc = kF32GemmSumGroup;
constexpr size_t kNc = 4096;
constexpr size_t kMc = 384;
constexpr size_t kNcRowsA = 512;
constexpr size_t kMcRowsA = 96;

struct Scratch {
  AlignedFloats a;
  AlignedFloats b;
};
Scratch& ThreadScratch() {
  thread_local Scratch s;
  return s;
}

// Packs rows [m0, m0+mc) x reduction steps [k0, k0+kc) of a kMk / kKm operand into MR panels
// of kc*mr floats each.
void PackABlock(const F32GemmA& a, size_t mr, size_t m0, size_t mc, size_t k0, size_t kc,
                float* dst) {
  if (a.kind == F32GemmA::Kind::kMk) {
    PackF32Panels(mr, kc, mc, a.data + m0 * a.ld + k0, 1, a.ld, dst, kc * mr);
  } else {
    PackF32Panels(mr, kc, mc, a.data + k0 * a.ld + m0, a.ld, 1, dst, kc * mr);
  }
}

// Whether a kKn / kKnGroups operand whose rows are `ld` floats apart is packed per call although
// the caller left it in place (F32GemmB::pack_rows false), for a block of `m` rows and a
// reduction of `k` steps: when the row stride is a multiple of 4 KiB (N = 1024, 2048, 3072,
// 4096, ...) every row of a KC block maps to the same L1 sets, and the MR tiles that re-read the
// block keep evicting it. Measured on AVX-512 with the row F32GemmKernelForUnpackedB picks
// (GFLOP/s, in place / packed): 1024^3 77 / 154, 48x2048x2048 89 / 113, 64x3072x768 105 / 117,
// 128x1024x384 109 / 127. Not below 32 rows (8x1024x1024 81 / 42, 24x1024x1024 92 / 81: too few
// re-reads to repay the copy) nor for a short reduction (64x4096x256 145 / 114, 128x4096x128
// 147 / 130 with the 6x64 row: few enough rows share the sets).
constexpr size_t kAliasedPackMinRows = 32;
constexpr size_t kAliasedPackMinK = 257;
bool PacksAliasedRows(size_t ld, size_t m, size_t k) {
  return ld != 0 && ld * sizeof(float) % 4096 == 0 && m >= kAliasedPackMinRows &&
         k >= kAliasedPackMinK;
}

// Whether the tiles of a GEMM with `n` columns read a row-major A (kMk) in place instead of
// packed: for the kernels that measured faster so (F32GemmKernel::rows_a), while n <= kRowsAMaxN.
// Packing A costs the same per call whatever N, so its share of the time falls as N grows, while
// reading MR strided row streams costs a fixed share: at 1024^3 (6x64) in place is about 1.5%
// faster, at 2048^3 about 1% slower. Not for a decode tile that streams B (`stream_b`), whose
// path is tuned for packed A; packing stays for kKm A (its rows are strided) and for a zero row
// stride (F32GemmTileParams::a_stride == 0 means packed).
constexpr size_t kRowsAMaxN = 1024;
bool ReadsARows(const F32GemmKernel& kernel, const F32GemmA& a, size_t n, bool stream_b) {
  return kernel.rows_a && a.kind == F32GemmA::Kind::kMk && a.ld != 0 && n <= kRowsAMaxN &&
         !stream_b;
}

// Runs the tiles of C rows [m_begin, m_end) x columns [n_begin, n_end); m_begin is a multiple
// of MR and n_begin of NR. A is read from `a_panels` (the full-K MR panels of all M rows) when
// not null, else in place from its rows (ReadsARows), else each MC x KC block of `a` is packed
// right before its tiles run, so that the packed block is still in L2 when they read it.
void RunBlock(const F32GemmKernel& kernel, size_t m_begin, size_t m_end, size_t n_begin,
              size_t n_end, size_t K, const float* a_panels, const F32GemmA& a,
              const F32GemmB& b, float* c, size_t ldc, const F32GemmEpilogue& ep) {
  const ScopedFlushDenormals ftz;
  const size_t mr = kernel.mr, nr = kernel.nr;
  // One M tile against prepacked panels (decode, M <= MR): nothing reuses a B block, so K is
  // not blocked and the panels are read front to back, one sequential stream over the whole
  // weight, which keeps the hardware prefetcher at full memory bandwidth.
  const bool stream_b = b.kind == F32GemmB::Kind::kPanels && m_end - m_begin <= mr;
  const size_t kc_block = stream_b ? std::max<size_t>(K, 1) : kKc;
  const size_t kc_max = std::min(kc_block, std::max<size_t>(K, 1));
  const bool rows_a = a_panels == nullptr && ReadsARows(kernel, a, n_end - n_begin, stream_b);
  const size_t nc_max = std::max(nr, (rows_a ? kNcRowsA : kNc) / nr * nr);
  const size_t mc_max = std::max(mr, (rows_a ? kMcRowsA : kMc) / mr * mr);
  const bool rows_kind = b.kind == F32GemmB::Kind::kKn || b.kind == F32GemmB::Kind::kKnGroups;
  const bool in_place = rows_kind && !b.pack_rows && !PacksAliasedRows(b.ld, m_end - m_begin, K);
  const size_t group = b.kind == F32GemmB::Kind::kKnGroups ? std::max<size_t>(b.group_rows, 1) : 0;
  float* b_scratch = nullptr;
  if (b.kind != F32GemmB::Kind::kPanels && !in_place) {
    Scratch& s = ThreadScratch();
    s.b.Resize(kc_max * std::min(nc_max, (n_end - n_begin + nr - 1) / nr * nr));
    b_scratch = s.b.data();
  }
  // A B operand copied per call (not a callback) is packed one panel at a time, during the
  // first M block, right before the tiles that read it: they find the panel in L1/L2 instead
  // of reading a whole packed KC x NC block back from L3.
  const bool pack_per_panel = b_scratch != nullptr && b.kind != F32GemmB::Kind::kCallback;
  float* a_scratch = nullptr;
  if (a_panels == nullptr && !rows_a) {
    Scratch& s = ThreadScratch();
    s.a.Resize(kc_max * std::min(mc_max, (m_end - m_begin + mr - 1) / mr * mr));
    a_scratch = s.a.data();
  }

  for (size_t jc = n_begin; jc < n_end; jc += nc_max) {
    const size_t nc = std::min(nc_max, n_end - jc);
    size_t pc = 0;
    do {
      // K blocks of a grouped operand never straddle a group (each is one strided matrix).
      const size_t kc = std::min(kc_block, group ? std::min(K, (pc / group + 1) * group) - pc : K - pc);
      const bool first = pc == 0, last = pc + kc >= K;
      const float* bptr = nullptr;
      size_t panel_stride = 0, b_stride = nr, b_split = 0;
      const float* rows = nullptr;  // row pc of a kKn / kKnGroups operand, column jc
      if (b.kind == F32GemmB::Kind::kKn) rows = b.data + pc * b.ld + jc;
      if (b.kind == F32GemmB::Kind::kKnGroups)
        rows = b.rows(b.ctx, pc / group) + (pc % group) * b.ld + jc;
      switch (b.kind) {
        case F32GemmB::Kind::kPanels: {
          // Panels of width nr, or nr / 2 for a split-B row (two panels per tile).
          const size_t w = b.panels->width;
          bptr = b.panels->base() + (jc / w) * K * w + pc * w;
          panel_stride = nr / w * K * w;
          b_stride = w;
          if (w != nr) b_split = K * w;
          break;
        }
        case F32GemmB::Kind::kKn:
        case F32GemmB::Kind::kKnGroups:
          if (in_place) {
            bptr = rows;
            panel_stride = nr;
            b_stride = b.ld;
          } else {
            bptr = b_scratch;  // packed panel by panel below
            panel_stride = kc * nr;
          }
          break;
        case F32GemmB::Kind::kNk:
          bptr = b_scratch;  // packed panel by panel below
          panel_stride = kc * nr;
          break;
        case F32GemmB::Kind::kCallback:
          b.pack(b.ctx, pc, kc, jc, nc, nr, b_scratch);
          bptr = b_scratch;
          panel_stride = kc * nr;
          break;
      }
      F32GemmTileParams tp;
      tp.alpha = ep.alpha;
      tp.accumulate = ep.accumulate || !first;
      tp.clamp = ep.clamp && last;
      tp.min = ep.min;
      tp.max = ep.max;
      tp.stream_b = stream_b;
      tp.a_stride = rows_a ? a.ld : 0;
      tp.b_split = b_split;
      // Rows per ukernel call: several packed A panels for a multi-panel row.
      const size_t m_step = rows_a ? mr : mr * kernel.a_panels;
      for (size_t ic = m_begin; ic < m_end; ic += mc_max) {
        const size_t mc = std::min(mc_max, m_end - ic);
        // The A panel of rows [ic + ir, ic + ir + mr), steps [pc, pc + kc), starts at
        // a_block + (ir / mr) * a_panel_stride.
        const float* a_block = a_scratch;
        size_t a_panel_stride = kc * mr;
        if (a_panels != nullptr) {
          a_block = a_panels + (ic / mr) * K * mr + pc * mr;
          a_panel_stride = K * mr;
        } else if (rows_a) {
          a_block = a.data + ic * a.ld + pc;  // tiles MR rows apart
          a_panel_stride = mr * a.ld;
        } else {
          PackABlock(a, mr, ic, mc, pc, kc, a_scratch);
        }
        tp.a_panel_stride = m_step > mr ? a_panel_stride : 0;
        for (size_t jr = 0; jr < nc; jr += nr) {
          const size_t ncj = std::min(nr, nc - jr);
          const float* bp = bptr + (jr / nr) * panel_stride;
          if (pack_per_panel && ic == m_begin) {
            float* dst = b_scratch + (jr / nr) * panel_stride;
            if (b.kind == F32GemmB::Kind::kNk) {
              PackF32Panels(nr, kc, ncj, b.data + (jc + jr) * b.ld + pc, 1, b.ld, dst, kc * nr);
            } else {
              PackF32Panels(nr, kc, ncj, rows + jr, b.ld, 1, dst, kc * nr);
            }
          }
          tp.bias_n = (!tp.accumulate && ep.bias_n) ? ep.bias_n + jc + jr : nullptr;
          for (size_t ir = 0; ir < mc; ir += m_step) {
            const size_t m = ic + ir;
            tp.bias_m = (!tp.accumulate && ep.bias_m) ? ep.bias_m + m : nullptr;
            kernel.ukernel(std::min(m_step, mc - ir), ncj, kc,
                           a_block + (ir / mr) * a_panel_stride, bp, b_stride,
                           c + m * ldc + jc + jr, ldc, &tp);
          }
        }
      }
      pc += kc;
    } while (pc < K);
  }
}

}  // namespace

void F32Gemm(const F32GemmKernel& kernel, size_t M, size_t N, size_t K, const F32GemmA& a,
             const F32GemmB& b, float* c, size_t ldc, const F32GemmEpilogue& ep, int threads) {
  if (M == 0 || N == 0) return;
  const size_t mr = kernel.mr, nr = kernel.nr;
  assert(a.kind != F32GemmA::Kind::kPanels ||
         (a.panels->width == mr && a.panels->extent >= M && a.panels->k == K));
  assert(b.kind != F32GemmB::Kind::kPanels ||
         ((b.panels->width == nr || (kernel.split_b && 2 * b.panels->width == nr)) &&
          b.panels->extent >= N && b.panels->k == K));
  const float* a_panels = a.kind == F32GemmA::Kind::kPanels ? a.panels->base() : nullptr;

  const size_t m_tiles = (M + mr - 1) / mr, n_tiles = (N + nr - 1) / nr;
  int t = std::max(1, threads);
  if (t > 1 && static_cast<double>(M) * N * std::max<size_t>(K, 1) < 64.0 * 64 * 64) t = 1;
  if (t == 1 || m_tiles * n_tiles < 2) {
    // A (when not prepacked) is packed block by block inside RunBlock.
    RunBlock(kernel, 0, M, 0, N, K, a_panels, a, b, c, ldc, ep);
    return;
  }
  // Split along N when there are enough column tiles (each thread then packs only its own
  // B columns), else along M (each thread then packs only its own A rows).
  const bool split_n = n_tiles >= static_cast<size_t>(t) * 2 || n_tiles >= m_tiles;
  const bool stream_b = b.kind == F32GemmB::Kind::kPanels && M <= mr;  // as in RunBlock
  if (split_n && a_panels == nullptr && !ReadsARows(kernel, a, N, stream_b)) {
    // Every thread reads all of A: pack it once, up front, for all of them.
    Scratch& s = ThreadScratch();
    s.a.Resize(std::max<size_t>(F32PanelsSize(mr, K, M), 1));
    if (a.kind == F32GemmA::Kind::kMk) {
      PackF32GemmMkToPanelsMr(mr, M, K, a.data, a.ld, s.a.data());
    } else {
      PackF32GemmKmToPanelsMr(mr, M, K, a.data, a.ld, s.a.data());
    }
    a_panels = s.a.data();
  }
  const size_t tiles = split_n ? n_tiles : m_tiles;
  t = static_cast<int>(std::min<size_t>(static_cast<size_t>(t), tiles));
#pragma omp parallel for num_threads(t) schedule(static)
  for (int i = 0; i < t; ++i) {
    const size_t lo = tiles * static_cast<size_t>(i) / static_cast<size_t>(t);
    const size_t hi = tiles * static_cast<size_t>(i + 1) / static_cast<size_t>(t);
    if (lo == hi) continue;
    if (split_n) {
      RunBlock(kernel, 0, M, lo * nr, std::min(N, hi * nr), K, a_panels, a, b, c, ldc, ep);
    } else {
      RunBlock(kernel, lo * mr, std::min(M, hi * mr), 0, N, K, a_panels, a, b, c, ldc, ep);
    }
  }
}

void F32Gemm(size_t M, size_t N, size_t K, const F32GemmA& a, const F32GemmB& b, float* c,
             size_t ldc, const F32GemmEpilogue& epilogue, int threads) {
  F32Gemm(DefaultF32GemmKernel(), M, N, K, a, b, c, ldc, epilogue, threads);
}

}  // namespace vt::kernels
