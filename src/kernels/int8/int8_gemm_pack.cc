#include "kernels/int8/int8_gemm_pack.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace vt::kernels {
namespace {

// Shared by the Kn and Nk packers: W(k, n) = w[k * sk + n * sn].
void PackS8Panels(size_t nr, size_t K, size_t N, const int8_t* w, size_t sk, size_t sn,
                  void* dst) {
  const size_t kg = (K + 3) / 4;
  const size_t panel_bytes = Int8VnniPanelBytes(nr, K);
  auto* out = static_cast<int8_t*>(dst);
  std::vector<int32_t> sums(nr);
  for (size_t n0 = 0; n0 < N; n0 += nr) {
    int8_t* p = out + (n0 / nr) * panel_bytes;
    std::memset(p, 0, panel_bytes);
    const size_t nn = std::min(nr, N - n0);
    std::fill(sums.begin(), sums.end(), 0);
    for (size_t k = 0; k < K; ++k) {
      int8_t* row = p + (k / 4) * nr * 4 + k % 4;
      const int8_t* src = w + k * sk + n0 * sn;
      for (size_t n = 0; n < nn; ++n) {
        const int8_t v = src[n * sn];
        row[n * 4] = v;
        sums[n] += v;
      }
    }
    std::memcpy(p + 4 * kg * nr, sums.data(), nr * sizeof(int32_t));
  }
}

template <typename T, uint8_t kAdd>
void PackActivations(size_t mr, size_t M, size_t K, const T* a, size_t lda, uint8_t* dst) {
  const size_t kg = (K + 3) / 4;
  const size_t panel = mr * 4 * kg;
  for (size_t m0 = 0; m0 < M; m0 += mr) {
    uint8_t* p = dst + (m0 / mr) * panel;
    const size_t mm = std::min(mr, M - m0);
    for (size_t i = 0; i < mr; ++i) {
      if (i >= mm) {
        for (size_t g = 0; g < kg; ++g) std::memset(p + (g * mr + i) * 4, 0, 4);
        continue;
      }
      const T* row = a + (m0 + i) * lda;
      for (size_t g = 0; g < kg; ++g) {
        uint8_t* d = p + (g * mr + i) * 4;
        for (size_t j = 0; j < 4; ++j) {
          const size_t k = g * 4 + j;
          // Past K the weight bytes are 0, so the padding contributes nothing whatever its
          // value; it is written as 0 for reproducible bytes.
          d[j] = k < K ? static_cast<uint8_t>(static_cast<uint8_t>(row[k]) + kAdd) : 0;
        }
      }
    }
  }
}

Int8Panels Allocate(size_t nr, size_t K, size_t N) {
  Int8Panels p;
  p.nr = nr;
  p.k = K;
  p.n = N;
  p.data = AllocateAlignedArray<int8_t>(p.size_bytes());
  return p;
}

}  // namespace

void PackS8KnToVnniPanels(size_t nr, size_t K, size_t N, const int8_t* w, size_t ldw, void* dst) {
  PackS8Panels(nr, K, N, w, ldw, 1, dst);
}

void PackS8NkToVnniPanels(size_t nr, size_t K, size_t N, const int8_t* w, size_t ldw, void* dst) {
  PackS8Panels(nr, K, N, w, 1, ldw, dst);
}

void PackU8MkToVnniPanels(size_t mr, size_t M, size_t K, const uint8_t* a, size_t lda,
                          uint8_t* dst) {
  PackActivations<uint8_t, 0>(mr, M, K, a, lda, dst);
}

void PackS8MkToVnniPanels(size_t mr, size_t M, size_t K, const int8_t* a, size_t lda,
                          uint8_t* dst) {
  PackActivations<int8_t, 128>(mr, M, K, a, lda, dst);
}

Int8Panels MakeInt8PanelsFromKn(size_t nr, size_t K, size_t N, const int8_t* w, size_t ldw) {
  Int8Panels p = Allocate(nr, K, N);
  PackS8KnToVnniPanels(nr, K, N, w, ldw, p.data.get());
  return p;
}

Int8Panels MakeInt8PanelsFromNk(size_t nr, size_t K, size_t N, const int8_t* w, size_t ldw) {
  Int8Panels p = Allocate(nr, K, N);
  PackS8NkToVnniPanels(nr, K, N, w, ldw, p.data.get());
  return p;
}

}  // namespace vt::kernels
