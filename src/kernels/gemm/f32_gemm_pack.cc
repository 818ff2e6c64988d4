#include "kernels/gemm/f32_gemm_pack.h"

#include <algorithm>
#include <cstring>
#include <new>

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

}  // namespace

void PackF32Panels(size_t w, size_t kc, size_t nj, const float* src, size_t sk, size_t sj,
                   float* dst, size_t panel_stride) {
  for (size_t j0 = 0; j0 < nj; j0 += w) {
    const size_t jn = std::min(w, nj - j0);
    float* d = dst + (j0 / w) * panel_stride;
    const float* s = src + j0 * sj;
    if (sj == 1) {
      // Source rows are contiguous along the panel dimension: row copies.
      for (size_t k = 0; k < kc; ++k) {
        std::memcpy(d + k * w, s + k * sk, jn * sizeof(float));
        if (jn < w) std::memset(d + k * w + jn, 0, (w - jn) * sizeof(float));
      }
    } else {
      size_t j = 0;
#if defined(__SSE2__)
      if (sk == 1) j = PackLinesBy4(w, kc, jn, s, sj, d);
#endif
      // Transposing gather: walk each source line (contiguous along k when sk == 1).
      for (; j < jn; ++j) {
        const float* sl = s + j * sj;
        for (size_t k = 0; k < kc; ++k) d[k * w + j] = sl[k * sk];
      }
      if (jn < w)
        for (size_t k = 0; k < kc; ++k) std::memset(d + k * w + jn, 0, (w - jn) * sizeof(float));
    }
  }
}

void PackF32GemmKnToPanelsNr(size_t nr, size_t K, size_t N, const float* b, size_t ldb,
                             float* dst) {
  PackF32Panels(nr, K, N, b, ldb, 1, dst, K * nr);
}
void PackF32GemmNkToPanelsNr(size_t nr, size_t K, size_t N, const float* b, size_t ldb,
                             float* dst) {
  PackF32Panels(nr, K, N, b, 1, ldb, dst, K * nr);
}
void PackF32GemmMkToPanelsMr(size_t mr, size_t M, size_t K, const float* a, size_t lda,
                             float* dst) {
  PackF32Panels(mr, K, M, a, 1, lda, dst, K * mr);
}
void PackF32GemmKmToPanelsMr(size_t mr, size_t M, size_t K, const float* a, size_t lda,
                             float* dst) {
  PackF32Panels(mr, K, M, a, lda, 1, dst, K * mr);
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
