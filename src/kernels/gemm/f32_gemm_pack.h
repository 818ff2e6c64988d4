// Packing of f32 GEMM operands into the panel layout the microkernels read.
//
// Panel layout (the physical form a weight cache persists; little-endian IEEE f32, no header):
// a logical matrix with a reduction dimension K and a panel dimension P (P = N for the B
// operand, P = M for the A operand) is cut into ceil(P / W) panels of W consecutive P-indices
// (W = the kernel's NR for B, MR for A). Panel p occupies K * W floats starting at float offset
// p * K * W (byte offset p * K * W * 4); inside it, element (k, p * W + w) is float k * W + w,
// i.e. each k contributes W contiguous floats. Indices past P are zero. A K block [k0, k0+kc)
// of panel p is therefore the contiguous range starting at p * K * W + k0 * W, which is what
// the driver hands to a microkernel.
//
// Function names say the source layout and the destination: `Kn` = row-major [K, N] (each
// reduction step is a contiguous row), `Nk` = row-major [N, K] (each output column's weights
// are contiguous, e.g. ONNX Gemm B with transB=1, Conv weights), `Mk` = row-major A [M, K],
// `Km` = row-major [K, M] (Gemm A with transA=1).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

#include "vtensor/base/host_memory.h"

namespace vt::kernels {

// 64-byte aligned float buffer (no initialisation). Movable, not copyable.
class AlignedFloats {
 public:
  AlignedFloats() = default;
  explicit AlignedFloats(size_t n) { Resize(n); }
  // Discards the contents when growing.
  void Resize(size_t n);
  size_t size() const { return size_; }
  float* data() { return p_.get(); }
  const float* data() const { return p_.get(); }

 private:
  // Scratch comes from host memory (base/host_memory.h): a buffer grown in the first run is
  // reused, already faulted in, by the next one that needs the same size.
  struct Free {
    size_t bytes;  // no default member initializer: it would make Free incomplete here
    void operator()(float* p) const { HostFree(p, bytes); }
  };
  std::unique_ptr<float[], Free> p_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Floats needed for `p_extent` indices packed at width `w` with reduction length `k`.
inline size_t F32PanelsSize(size_t w, size_t k, size_t p_extent) {
  return (p_extent + w - 1) / w * w * k;
}

// Generic packer: element (k, j) of the source, k < kc, j < nj, is src[k * sk + j * sj]; it is
// stored at dst[(j / w) * panel_stride + k * w + j % w], the tail of the last panel zeroed.
// panel_stride >= kc * w.
// Serial: the GEMM driver calls it per block from inside its own parallel region. A source
// with contiguous rows (sj == 1) is copied row by row across all panels (k in blocks that keep
// each panel's piece contiguous); other sources are gathered line by line into each panel.
void PackF32Panels(size_t w, size_t kc, size_t nj, const float* src, size_t sk, size_t sj,
                   float* dst, size_t panel_stride);
// The same bytes, the panels split into contiguous ranges over up to omp_get_max_threads()
// OpenMP threads (kernels/cpu/parallel_pack.h; one thread inside a parallel region or for
// small operands). Output identical for every thread count.
void PackF32PanelsThreaded(size_t w, size_t kc, size_t nj, const float* src, size_t sk,
                           size_t sj, float* dst, size_t panel_stride);
// Scalar reference twin of PackF32Panels (the definition above, element by element).
void PackF32PanelsReference(size_t w, size_t kc, size_t nj, const float* src, size_t sk,
                            size_t sj, float* dst, size_t panel_stride);

// Whole-operand packers (weights at load, A at run time): PackF32PanelsThreaded.
// B [K, N] row-major with row stride ldb -> ceil(N/nr) panels of K*nr floats.
void PackF32GemmKnToPanelsNr(size_t nr, size_t K, size_t N, const float* b, size_t ldb,
                             float* dst);
// B given as [N, K] row-major (row stride ldb) -> the same panels as above.
void PackF32GemmNkToPanelsNr(size_t nr, size_t K, size_t N, const float* b, size_t ldb,
                             float* dst);
// A [M, K] row-major (row stride lda) -> ceil(M/mr) panels of K*mr floats.
void PackF32GemmMkToPanelsMr(size_t mr, size_t M, size_t K, const float* a, size_t lda,
                             float* dst);
// A given as [K, M] row-major (row stride lda) -> the same panels as above.
void PackF32GemmKmToPanelsMr(size_t mr, size_t M, size_t K, const float* a, size_t lda,
                             float* dst);

// Prepacked operand: the panels of one matrix. `width` is the kernel's NR (B side) or MR
// (A side); `extent` the logical panel-dimension length; `k` the reduction length. The panels
// are either owned (`data`, filled by the Make* packers) or borrowed: `borrowed` points at
// F32PanelsSize(width, k, extent) floats in the same layout (a memory-mapped compiled-tensor
// payload), kept alive by `keep_alive`, never written.
struct F32Panels {
  size_t width = 0;
  size_t k = 0;
  size_t extent = 0;
  AlignedFloats data;
  const float* borrowed = nullptr;
  std::shared_ptr<const void> keep_alive;

  size_t num_panels() const { return (extent + width - 1) / width; }
  const float* base() const { return borrowed != nullptr ? borrowed : data.data(); }
  const float* panel(size_t p) const { return base() + p * k * width; }
};

// Borrowed panels over `floats` (at least F32PanelsSize(w, k, extent) floats, 4-byte aligned).
F32Panels BorrowF32Panels(size_t w, size_t k, size_t extent, const float* floats,
                          std::shared_ptr<const void> keep_alive);

F32Panels MakeF32PanelsFromKn(size_t nr, size_t K, size_t N, const float* b, size_t ldb);
F32Panels MakeF32PanelsFromNk(size_t nr, size_t K, size_t N, const float* b, size_t ldb);
F32Panels MakeF32PanelsFromMk(size_t mr, size_t M, size_t K, const float* a, size_t lda);
F32Panels MakeF32PanelsFromKm(size_t mr, size_t M, size_t K, const float* a, size_t lda);

}  // namespace vt::kernels
