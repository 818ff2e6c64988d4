#include "kernels/gemm/f32_gemm_pack.h"

#include <algorithm>
#include <cstring>
#include <new>

#include <omp.h>

#include "kernels/cpu/parallel_pack.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace vt::kernels {

void AlignedFloats::Resize(size_t n) {
  if (n <= capacity_) {
    size_ = n;
    return;
  }
  // Round up so that repeated small growth does not reallocate every call.
  size_t cap = std::max(n, capacity_ + capacity_ / 2);
  size_t bytes = (cap * sizeof(float) + 63) / 64 * 64;
  void* p = HostAlloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  p_ = std::unique_ptr<float[], Free>(static_cast<float*>(p), Free{bytes});
  size_ = n;
  capacity_ = cap;
}

namespace {

#if defined(__SSE2__)
// Transposing pack of source lines that are contiguous along k (sk == 1, e.g. A [M, K] rows):
// lines j, j+1, j+2, j+3 are read 4 k at a time and transposed in registers, so that every
// store writes 4 adjacent floats of a panel row; a remaining pair of lines (panel widths 6,
// 14, 2) is interleaved 4 k at a time into 2-float stores. k runs in blocks that keep the
// touched panel rows in L1 across the line groups. Packs the first jn / 2 * 2 lines, returns
// that count (the caller packs the last line of an odd jn).
size_t PackLinesBy4(size_t w, size_t kc, size_t jn, const float* s, size_t sj, float* d) {
  constexpr size_t kBlock = 128;
  const size_t j4 = jn / 4 * 4;
  const bool pair = jn - j4 >= 2;
  for (size_t k0 = 0; k0 < kc; k0 += kBlock) {
    const size_t k1 = std::min(kc, k0 + kBlock);
    for (size_t j = 0; j < j4; j += 4) {
      const float* s0 = s + j * sj;
      const float* s1 = s0 + sj;
      const float* s2 = s1 + sj;
      const float* s3 = s2 + sj;
      float* dj = d + j;
      size_t k = k0;
      for (; k + 4 <= k1; k += 4) {
        __m128 r0 = _mm_loadu_ps(s0 + k), r1 = _mm_loadu_ps(s1 + k);
        __m128 r2 = _mm_loadu_ps(s2 + k), r3 = _mm_loadu_ps(s3 + k);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        _mm_storeu_ps(dj + k * w, r0);
        _mm_storeu_ps(dj + (k + 1) * w, r1);
        _mm_storeu_ps(dj + (k + 2) * w, r2);
        _mm_storeu_ps(dj + (k + 3) * w, r3);
      }
      for (; k < k1; ++k) {
        dj[k * w] = s0[k];
        dj[k * w + 1] = s1[k];
        dj[k * w + 2] = s2[k];
        dj[k * w + 3] = s3[k];
      }
    }
    if (pair) {
      const float* s0 = s + j4 * sj;
      const float* s1 = s0 + sj;
      float* dj = d + j4;
      size_t k = k0;
      for (; k + 4 <= k1; k += 4) {
        const __m128 r0 = _mm_loadu_ps(s0 + k), r1 = _mm_loadu_ps(s1 + k);
        const __m128 lo = _mm_unpacklo_ps(r0, r1), hi = _mm_unpackhi_ps(r0, r1);
        _mm_storel_pi(reinterpret_cast<__m64*>(dj + k * w), lo);
        _mm_storeh_pi(reinterpret_cast<__m64*>(dj + (k + 1) * w), lo);
        _mm_storel_pi(reinterpret_cast<__m64*>(dj + (k + 2) * w), hi);
        _mm_storeh_pi(reinterpret_cast<__m64*>(dj + (k + 3) * w), hi);
      }
      for (; k < k1; ++k) {
        dj[k * w] = s0[k];
        dj[k * w + 1] = s1[k];
      }
    }
  }
  return pair ? j4 + 2 : j4;
}
#endif

// Rows [k0, k1) of panels [p0, p1) from a source whose rows are contiguous along the panel
// dimension (sj == 1): each row is one streaming read cut into W-float pieces, one per panel.
// W is a compile-time width (the common NR / MR values) so each piece is a few vector moves;
// W = 0 takes the width from `w`.
template <size_t W>
void CopyRowsToPanels(size_t w, size_t k0, size_t k1, size_t p0, size_t p1, size_t nj,
                      const float* src, size_t sk, float* dst, size_t panel_stride) {
  const size_t width = W != 0 ? W : w;
  const size_t full = std::min(p1, nj / width);  // panels with no tail
  for (size_t k = k0; k < k1; ++k) {
    const float* s = src + k * sk + p0 * width;
    float* d = dst + p0 * panel_stride + k * width;
    size_t p = p0;
    for (; p < full; ++p, s += width, d += panel_stride) std::memcpy(d, s, width * sizeof(float));
    if (p < p1) {  // the last panel: jn < width source floats, zero tail
      const size_t jn = nj - p * width;
      std::memcpy(d, s, jn * sizeof(float));
      std::memset(d + jn, 0, (width - jn) * sizeof(float));
    }
  }
}

// Rows are walked in blocks of kRowBlock so that the destination pieces of one panel stay
// contiguous (kRowBlock * W floats) while the block's source rows stay in L2.
constexpr size_t kRowBlock = 64;

void PackRowsToPanels(size_t w, size_t kc, size_t p0, size_t p1, size_t nj, const float* src,
                      size_t sk, float* dst, size_t panel_stride) {
  for (size_t k0 = 0; k0 < kc; k0 += kRowBlock) {
    const size_t k1 = std::min(kc, k0 + kRowBlock);
    switch (w) {
      case 4: CopyRowsToPanels<4>(w, k0, k1, p0, p1, nj, src, sk, dst, panel_stride); break;
      case 8: CopyRowsToPanels<8>(w, k0, k1, p0, p1, nj, src, sk, dst, panel_stride); break;
      case 16: CopyRowsToPanels<16>(w, k0, k1, p0, p1, nj, src, sk, dst, panel_stride); break;
      case 32: CopyRowsToPanels<32>(w, k0, k1, p0, p1, nj, src, sk, dst, panel_stride); break;
      case 48: CopyRowsToPanels<48>(w, k0, k1, p0, p1, nj, src, sk, dst, panel_stride); break;
      case 64: CopyRowsToPanels<64>(w, k0, k1, p0, p1, nj, src, sk, dst, panel_stride); break;
      default: CopyRowsToPanels<0>(w, k0, k1, p0, p1, nj, src, sk, dst, panel_stride); break;
    }
  }
}

// Panels [p0, p1) from a source whose panel-dimension lines are not contiguous (sj != 1).
void PackLinesToPanels(size_t w, size_t kc, size_t p0, size_t p1, size_t nj, const float* src,
                       size_t sk, size_t sj, float* dst, size_t panel_stride) {
  for (size_t p = p0; p < p1; ++p) {
    const size_t j0 = p * w, jn = std::min(w, nj - j0);
    float* d = dst + p * panel_stride;
    const float* s = src + j0 * sj;
    size_t j = 0;
#if defined(__SSE2__)
    if (sk == 1) j = PackLinesBy4(w, kc, jn, s, sj, d);
#endif
    // Remaining lines: a strided walk of one source line into one panel column.
    for (; j < jn; ++j) {
      const float* sl = s + j * sj;
      float* dl = d + j;
      for (size_t k = 0; k < kc; ++k, sl += sk, dl += w) *dl = *sl;
    }
    if (jn < w)
      for (size_t k = 0; k < kc; ++k) std::memset(d + k * w + jn, 0, (w - jn) * sizeof(float));
  }
}

void PackPanelRange(size_t w, size_t kc, size_t p0, size_t p1, size_t nj, const float* src,
                    size_t sk, size_t sj, float* dst, size_t panel_stride) {
  if (sj == 1) PackRowsToPanels(w, kc, p0, p1, nj, src, sk, dst, panel_stride);
  else PackLinesToPanels(w, kc, p0, p1, nj, src, sk, sj, dst, panel_stride);
}

}  // namespace

void PackF32Panels(size_t w, size_t kc, size_t nj, const float* src, size_t sk, size_t sj,
                   float* dst, size_t panel_stride) {
  PackPanelRange(w, kc, 0, (nj + w - 1) / w, nj, src, sk, sj, dst, panel_stride);
}

void PackF32PanelsThreaded(size_t w, size_t kc, size_t nj, const float* src, size_t sk,
                           size_t sj, float* dst, size_t panel_stride) {
  const size_t panels = (nj + w - 1) / w;
  const size_t bytes = panels * w * kc * sizeof(float);
  const int threads = ParallelPackThreads(bytes, panels);
  if (threads <= 1) return PackPanelRange(w, kc, 0, panels, nj, src, sk, sj, dst, panel_stride);
  // Each thread packs one contiguous range of whole panels: disjoint outputs, so the bytes do
  // not depend on the thread count.
#pragma omp parallel num_threads(threads)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    const size_t n = static_cast<size_t>(omp_get_num_threads());
    PackPanelRange(w, kc, panels * t / n, panels * (t + 1) / n, nj, src, sk, sj, dst,
                   panel_stride);
  }
}

void PackF32PanelsReference(size_t w, size_t kc, size_t nj, const float* src, size_t sk,
                            size_t sj, float* dst, size_t panel_stride) {
  const size_t padded = (nj + w - 1) / w * w;
  for (size_t j = 0; j < padded; ++j)
    for (size_t k = 0; k < kc; ++k)
      dst[(j / w) * panel_stride + k * w + j % w] = j < nj ? src[k * sk + j * sj] : 0.0f;
}

void PackF32GemmKnToPanelsNr(size_t nr, size_t K, size_t N, const float* b, size_t ldb,
                             float* dst) {
  PackF32PanelsThreaded(nr, K, N, b, ldb, 1, dst, K * nr);
}
void PackF32GemmNkToPanelsNr(size_t nr, size_t K, size_t N, const float* b, size_t ldb,
                             float* dst) {
  PackF32PanelsThreaded(nr, K, N, b, 1, ldb, dst, K * nr);
}
void PackF32GemmMkToPanelsMr(size_t mr, size_t M, size_t K, const float* a, size_t lda,
                             float* dst) {
  PackF32PanelsThreaded(mr, K, M, a, 1, lda, dst, K * mr);
}
void PackF32GemmKmToPanelsMr(size_t mr, size_t M, size_t K, const float* a, size_t lda,
                             float* dst) {
  PackF32PanelsThreaded(mr, K, M, a, lda, 1, dst, K * mr);
}

namespace {
F32Panels Alloc(size_t w, size_t k, size_t extent) {
  F32Panels p;
  p.width = w;
  p.k = k;
  p.extent = extent;
  p.data.Resize(std::max<size_t>(F32PanelsSize(w, k, extent), 1));
  return p;
}
}  // namespace

F32Panels MakeF32PanelsFromKn(size_t nr, size_t K, size_t N, const float* b, size_t ldb) {
  F32Panels p = Alloc(nr, K, N);
  PackF32GemmKnToPanelsNr(nr, K, N, b, ldb, p.data.data());
  return p;
}
F32Panels MakeF32PanelsFromNk(size_t nr, size_t K, size_t N, const float* b, size_t ldb) {
  F32Panels p = Alloc(nr, K, N);
  PackF32GemmNkToPanelsNr(nr, K, N, b, ldb, p.data.data());
  return p;
}
F32Panels MakeF32PanelsFromMk(size_t mr, size_t M, size_t K, const float* a, size_t lda) {
  F32Panels p = Alloc(mr, K, M);
  PackF32GemmMkToPanelsMr(mr, M, K, a, lda, p.data.data());
  return p;
}
F32Panels MakeF32PanelsFromKm(size_t mr, size_t M, size_t K, const float* a, size_t lda) {
  F32Panels p = Alloc(mr, K, M);
  PackF32GemmKmToPanelsMr(mr, M, K, a, lda, p.data.data());
  return p;
}

F32Panels BorrowF32Panels(size_t w, size_t k, size_t extent, const float* floats,
                          std::shared_ptr<const void> keep_alive) {
  F32Panels p;
  p.width = w;
  p.k = k;
  p.extent = extent;
  p.borrowed = floats;
  p.keep_alive = std::move(keep_alive);
  return p;
}

}  // namespace vt::kernels
