// Small-M f32 GEMM reading B in its source layout: C[M, N] = epilogue(alpha * A[M, K] * B[K, N]
// + init) for GEMMs of a few rows (decode-shaped, M <= the row's max_m), with B read in place
// as the weight is stored (docs/weight-forms.md, "Source layout, read in place"):
//   kKn  B(k, n) = b[k * ldb + n]   (MatMul B, Gemm B with transB = 0: row-major [K, N])
//   kNk  B(k, n) = b[n * ldb + k]   (Gemm B with transB = 1: row-major [N, K])
// A is row-major: A(m, k) = a[m * lda + k]. C(m, n) = c[m * ldc + n]. Nothing is packed, so a
// weight mapped from its file is used as it lies (no copy at load, pages shared between
// processes). Such a GEMM reads each weight byte once; the rows below stream B at the speed of
// the packed panels (vtensor-kbench f32_in_place rows).
//
// Epilogue as F32GemmEpilogue (f32_gemm.h): the initial value is C(m, n) (accumulate) or
// bias_m[m] + bias_n[n] (absent biases 0, indexed by absolute row and column), then min/max
// when clamp is set, as the vector instructions do (the second operand on equality or NaN).
//
// Summation order of each C element (every row of a table entry's order gives the same bits as
// its scalar twin F32GemvReference):
//   kKn: exactly that of f32_gemm_ukernel.h (sum blocks of kF32GemmSumBlock steps from zero,
//        groups of kF32GemmSumGroup steps, r = r + alpha * g per group), with the row's
//        products: bit-identical to F32Gemm over packed panels with a kernel of the same
//        products, so reading in place never changes a MatMul's result.
//   kNk: step k belongs to lane k % 16; each lane sums its steps in order from zero, one
//        product per step, in chunks of kF32GemvLaneBlock of its steps, the chunk sums added
//        into the lane's total; the 16 lane totals are then added as a tree (lane l + lane
//        l + 8 for l < 8, then + 4, + 2, + 1) and r = init + alpha * total. Another order than
//        the packed path's (a dot product vectorises along K), within docs/accuracy.md's
//        bounds: a sum of K terms is about kF32GemvLaneBlock + 4 + K / (16 *
//        kF32GemvLaneBlock) roundings deep.
// Subnormal operands and results are flushed to zero while the rows run, as in F32Gemm.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "kernels/gemm/f32_gemm.h"

namespace vt::kernels {

// How B is stored (see above).
enum class F32GemvOrder { kKn, kNk };

// kNk: lane steps summed from zero in one chain before joining the lane's total.
inline constexpr size_t kF32GemvLaneBlock = 128;
// kNk: lanes of the reduction (k % 16), whatever the vector width of the row.
inline constexpr size_t kF32GemvLanes = 16;

// Columns [n0, n1) of all `m` rows (1 <= m <= the row's max_m, n0 < n1 <= N); c points at
// C(0, 0). K may be 0 (then only the epilogue is written). The kKn rows keep their block and
// group sums on the calling thread's stack: at most 64 KiB.
using F32GemvFn = void (*)(size_t m, size_t n0, size_t n1, size_t k, const float* a, size_t lda,
                           const float* b, size_t ldb, float* c, size_t ldc,
                           const F32GemmEpilogue* ep);

struct F32GemvKernel {
  const char* name;  // "f32_gemv_<kn|nk>_<max_m>x<columns per tile>_<isa>"
  F32GemvOrder order;
  size_t max_m;
  const char* isa;  // "avx512", "avx2", "portable"
  F32GemvFn fn;
  bool (*supported)();
  F32GemmProducts products;
};

// All rows; per order, the best ISA first.
std::span<const F32GemvKernel> F32GemvKernels();
// Row by name, or null.
const F32GemvKernel* FindF32GemvKernel(std::string_view name);
// The first row of kernel ISA `isa` ("avx512", "avx2", "portable") for `order`, supported or
// not, or null.
const F32GemvKernel* F32GemvRowForIsa(std::string_view isa, F32GemvOrder order);

// Scalar reference twin of every row: the order above in plain loops, with `products`.
void F32GemvReference(F32GemvOrder order, F32GemmProducts products, size_t m, size_t n0,
                      size_t n1, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                      float* c, size_t ldc, const F32GemmEpilogue* ep);

// The GEMM with row `kernel` (M <= kernel.max_m; a programming error otherwise, asserted),
// its columns split over `threads` OpenMP threads in 64-column multiples (the bits do not
// depend on the split). Flushes subnormals in every thread that computes.
void F32Gemv(const F32GemvKernel& kernel, size_t M, size_t N, size_t K, const float* a,
             size_t lda, const float* b, size_t ldb, float* c, size_t ldc,
             const F32GemmEpilogue& ep, int threads = 1);

// Per-ISA rows (f32_gemv_{avx512,avx2,scalar}.cc).
void f32_gemv_kn_8x4096_avx512(size_t m, size_t n0, size_t n1, size_t k, const float* a,
                               size_t lda, const float* b, size_t ldb, float* c, size_t ldc,
                               const F32GemmEpilogue* ep);
void f32_gemv_nk_8x8_avx512(size_t m, size_t n0, size_t n1, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc,
                            const F32GemmEpilogue* ep);
void f32_gemv_kn_8x4096_avx2(size_t m, size_t n0, size_t n1, size_t k, const float* a,
                             size_t lda, const float* b, size_t ldb, float* c, size_t ldc,
                             const F32GemmEpilogue* ep);
void f32_gemv_nk_8x4_avx2(size_t m, size_t n0, size_t n1, size_t k, const float* a, size_t lda,
                          const float* b, size_t ldb, float* c, size_t ldc,
                          const F32GemmEpilogue* ep);
// The twin with rounded products (F32GemmProducts::kRounded, as the portable GEMM row).
void f32_gemv_kn_8x256_portable(size_t m, size_t n0, size_t n1, size_t k, const float* a,
                                size_t lda, const float* b, size_t ldb, float* c, size_t ldc,
                                const F32GemmEpilogue* ep);
void f32_gemv_nk_8x1_portable(size_t m, size_t n0, size_t n1, size_t k, const float* a,
                              size_t lda, const float* b, size_t ldb, float* c, size_t ldc,
                              const F32GemmEpilogue* ep);

}  // namespace vt::kernels
