// The small-M in-place table (one row per ISA and B order) and its driver.
#include "kernels/gemm/f32_gemv.h"

#include <omp.h>

#include <algorithm>
#include <cassert>

#include "kernels/cpu/flush_denormals.h"
#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {
namespace {

constexpr auto Avx512Supported = CpuHasAvx512;
constexpr auto Avx2Supported = CpuHasAvx2;
constexpr auto Always = AlwaysSupported;
constexpr auto kFused = F32GemmProducts::kFused;
constexpr auto kRounded = F32GemmProducts::kRounded;

const F32GemvKernel kKernels[] = {
    {"f32_gemv_kn_8x4096_avx512", F32GemvOrder::kKn, 8, "avx512", f32_gemv_kn_8x4096_avx512,
     Avx512Supported, kFused},
    {"f32_gemv_kn_8x4096_avx2", F32GemvOrder::kKn, 8, "avx2", f32_gemv_kn_8x4096_avx2,
     Avx2Supported, kFused},
    {"f32_gemv_kn_8x256_portable", F32GemvOrder::kKn, 8, "portable", f32_gemv_kn_8x256_portable,
     Always, kRounded},
    {"f32_gemv_nk_8x8_avx512", F32GemvOrder::kNk, 8, "avx512", f32_gemv_nk_8x8_avx512,
     Avx512Supported, kFused},
    {"f32_gemv_nk_8x4_avx2", F32GemvOrder::kNk, 8, "avx2", f32_gemv_nk_8x4_avx2, Avx2Supported,
     kFused},
    {"f32_gemv_nk_8x1_portable", F32GemvOrder::kNk, 8, "portable", f32_gemv_nk_8x1_portable,
     Always, kRounded},
};

// Columns per thread are multiples of this (whole bands of the narrowest row).
constexpr size_t kThreadColumns = 64;
// Below this many multiply-adds one thread does it all.
constexpr double kMinParallelMacs = 64.0 * 64 * 64;

}  // namespace

std::span<const F32GemvKernel> F32GemvKernels() { return kKernels; }

const F32GemvKernel* FindF32GemvKernel(std::string_view name) {
  for (const auto& k : kKernels)
    if (name == k.name) return &k;
  return nullptr;
}

const F32GemvKernel* F32GemvRowForIsa(std::string_view isa, F32GemvOrder order) {
  for (const auto& k : kKernels)
    if (k.order == order && isa == k.isa) return &k;
  return nullptr;
}

void F32Gemv(const F32GemvKernel& kernel, size_t M, size_t N, size_t K, const float* a,
             size_t lda, const float* b, size_t ldb, float* c, size_t ldc,
             const F32GemmEpilogue& ep, int threads) {
  assert(M <= kernel.max_m);
  if (M == 0 || N == 0) return;
  const size_t units = (N + kThreadColumns - 1) / kThreadColumns;
  size_t t = static_cast<size_t>(std::max(1, threads));
  if (static_cast<double>(M) * N * std::max<size_t>(K, 1) < kMinParallelMacs) t = 1;
  t = std::min(t, units);
  if (t == 1) {
    const ScopedFlushDenormals ftz;
    kernel.fn(M, 0, N, K, a, lda, b, ldb, c, ldc, &ep);
    return;
  }
#pragma omp parallel for num_threads(static_cast<int>(t)) schedule(static)
  for (size_t i = 0; i < t; ++i) {
    const size_t lo = units * i / t * kThreadColumns;
    const size_t hi = std::min(N, units * (i + 1) / t * kThreadColumns);
    if (lo >= hi) continue;
    const ScopedFlushDenormals ftz;
    kernel.fn(M, lo, hi, K, a, lda, b, ldb, c, ldc, &ep);
  }
}

}  // namespace vt::kernels
