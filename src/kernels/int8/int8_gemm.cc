#include "kernels/int8/int8_gemm.h"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <memory>

#include "vtensor/base/aligned_alloc.h"

namespace vt::kernels {
namespace {

// Cache blocking, in groups of 4 k. K is not blocked up to kKcGroups groups (16384 k): a KC x NR
// weight block (up to 768 KiB at NR 48) stays in L2 while every MR-row activation tile of the
// column reads it, and each C tile is written once instead of once per K block. Measured against
// KC 256 groups (one thread, 8x48 VNNI row, paired calls): 128x4096x4096 1.03x, 64x11008x4096
// 1.08x, 1024x1024x4096 1.11x, 2048^3 1.21x, M = 1 and 8 at K = N = 4096 1.03x, smaller shapes
// even; kbench's int8 row (M = 128, K = N = 4096) went from 0.93x to 0.96x oneDNN.
constexpr size_t kKcGroups = 4096;
constexpr size_t kNc = 1024;

struct Scratch {
  AlignedArray<uint8_t> p;
  size_t capacity = 0;
  uint8_t* Get(size_t bytes) {
    if (bytes > capacity) {
      const size_t cap = AlignedSize(std::max(bytes, capacity + capacity / 2));
      p = AllocateAlignedArray<uint8_t>(cap);
      capacity = cap;
    }
    return p.get();
  }
};

// Tiles of C rows [m_begin, m_end) x columns [n_begin, n_end); m_begin is a multiple of MR and
// n_begin of NR. `a_panels` are the full-K activation panels.
void RunBlock(const Int8GemmKernel& kernel, size_t m_begin, size_t m_end, size_t n_begin,
              size_t n_end, size_t kg_total, const uint8_t* a_panels, int32_t a_offset,
              const Int8Panels& w, void* c, size_t ldc, const Int8GemmDequantize* dq) {
  const size_t mr = kernel.mr, nr = kernel.nr;
  const size_t nc_max = std::max(nr, kNc / nr * nr);
  auto* cb = static_cast<int32_t*>(c);  // 4-byte elements (int32 or float)
  for (size_t jc = n_begin; jc < n_end; jc += nc_max) {
    const size_t nc = std::min(nc_max, n_end - jc);
    size_t pg = 0;
    do {
      const size_t kg = std::min(kKcGroups, kg_total - pg);
      Int8GemmTileParams tp;
      tp.accumulate = pg != 0;
      tp.a_offset = a_offset;
      tp.dequantize = dq != nullptr && pg + kg >= kg_total;
      if (dq != nullptr) tp.scale_a = dq->scale_a;
      for (size_t jr = 0; jr < nc; jr += nr) {
        const size_t n = jc + jr, p = n / nr;
        const size_t ncj = std::min(nr, n_end - n);
        const int8_t* bp = w.panel(p) + pg * 4 * nr;
        tp.column_sums = w.column_sums(p);
        if (dq != nullptr) {
          tp.scale_n = dq->scale_n + n;
          tp.bias_n = dq->bias_n != nullptr ? dq->bias_n + n : nullptr;
        }
        for (size_t m = m_begin; m < m_end; m += mr) {
          kernel.ukernel(std::min(mr, m_end - m), ncj, kg,
                         a_panels + (m / mr) * mr * 4 * kg_total + pg * 4 * mr, bp,
                         cb + m * ldc + n, ldc, &tp);
        }
      }
      pg += kg;
    } while (pg < kg_total);
  }
}

void Run(const Int8GemmKernel& kernel, size_t M, size_t N, size_t K, const Int8GemmA& a,
         const Int8Panels& w, void* c, size_t ldc, const Int8GemmDequantize* dq, int threads) {
  if (M == 0 || N == 0) return;
  assert(w.nr == kernel.nr && w.k == K && w.n >= N);
  const size_t mr = kernel.mr, nr = kernel.nr, kg = (K + 3) / 4;
  thread_local Scratch scratch;
  uint8_t* a_panels = scratch.Get(std::max<size_t>(Int8VnniActivationPanelsSize(mr, M, K), 64));
  int32_t a_offset = a.zero_point;
  if (a.kind == Int8GemmA::Kind::kS8Mk) {
    PackS8MkToVnniPanels(mr, M, K, static_cast<const int8_t*>(a.data), a.ld, a_panels);
    a_offset += 128;
  } else {
    PackU8MkToVnniPanels(mr, M, K, static_cast<const uint8_t*>(a.data), a.ld, a_panels);
  }

  const size_t m_tiles = (M + mr - 1) / mr, n_tiles = (N + nr - 1) / nr;
  int t = std::max(1, threads);
  if (t > 1 && static_cast<double>(M) * N * std::max<size_t>(K, 1) < 64.0 * 64 * 64) t = 1;
  if (t == 1 || m_tiles * n_tiles < 2) {
    RunBlock(kernel, 0, M, 0, N, kg, a_panels, a_offset, w, c, ldc, dq);
    return;
  }
  // Split along N when there are enough column tiles (each thread streams only its own weight
  // panels), else along M.
  const bool split_n = n_tiles >= static_cast<size_t>(t) * 2 || n_tiles >= m_tiles;
  const size_t tiles = split_n ? n_tiles : m_tiles;
  t = static_cast<int>(std::min<size_t>(static_cast<size_t>(t), tiles));
#pragma omp parallel for num_threads(t) schedule(static)
  for (int i = 0; i < t; ++i) {
    const size_t lo = tiles * static_cast<size_t>(i) / static_cast<size_t>(t);
    const size_t hi = tiles * static_cast<size_t>(i + 1) / static_cast<size_t>(t);
    if (lo == hi) continue;
    if (split_n) {
      RunBlock(kernel, 0, M, lo * nr, std::min(N, hi * nr), kg, a_panels, a_offset, w, c, ldc,
               dq);
    } else {
      RunBlock(kernel, lo * mr, std::min(M, hi * mr), 0, N, kg, a_panels, a_offset, w, c, ldc,
               dq);
    }
  }
}

}  // namespace

void Int8Gemm(const Int8GemmKernel& kernel, size_t M, size_t N, size_t K, const Int8GemmA& a,
              const Int8Panels& w, int32_t* c, size_t ldc, int threads) {
  Run(kernel, M, N, K, a, w, c, ldc, nullptr, threads);
}

void Int8Gemm(const Int8GemmKernel& kernel, size_t M, size_t N, size_t K, const Int8GemmA& a,
              const Int8Panels& w, float* y, size_t ldy, const Int8GemmDequantize& dq,
              int threads) {
  assert(dq.scale_n != nullptr);
  Run(kernel, M, N, K, a, w, y, ldy, &dq, threads);
}

}  // namespace vt::kernels
