#include "kernels/gemm/f32_gemm_pack.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace vt::kernels {

void AlignedFloats::Resize(size_t n) {
  if (n <= capacity_) {
    size_ = n;
    return;
  }
  // Round up so that repeated small growth does not reallocate every call.
  size_t cap = std::max(n, capacity_ + capacity_ / 2);
  size_t bytes = (cap * sizeof(float) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes);
  if (p == nullptr) throw std::bad_alloc();
  p_.reset(static_cast<float*>(p));
  size_ = n;
  capacity_ = cap;
}

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
      // Transposing gather: walk each source line (contiguous along k when sk == 1).
      for (size_t j = 0; j < jn; ++j) {
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
