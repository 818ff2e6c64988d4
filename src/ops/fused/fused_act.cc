#include "ops/fused/fused_act.h"

#include <omp.h>

#include <algorithm>

#include "kernels/cpu/flush_denormals.h"

namespace vt::ops {
namespace {

// Calls f(u0, u1) on consecutive unit ranges covering [0, units), in parallel over `threads`
// when the work (units * cost_per_unit element operations) pays for it.
template <typename F>
void ForUnitRanges(int64_t units, int64_t cost_per_unit, int threads, F&& f) {
  int t = units * cost_per_unit < (int64_t{1} << 16) ? 1 : threads;
  t = static_cast<int>(std::min<int64_t>(t, units));
  if (t <= 1) {
    if (units > 0) f(int64_t{0}, units);
    return;
  }
#pragma omp parallel for num_threads(t) schedule(static)
  for (int i = 0; i < t; ++i) {
    const int64_t u0 = units * i / t, u1 = units * (i + 1) / t;
    if (u0 < u1) f(u0, u1);
  }
}

}  // namespace

std::optional<FusedActivation> FusedActivationFromName(const std::string& name) {
  using kernels::GeluKind;
  if (name.empty()) return FusedActivation{};
  if (name == "Gelu") return FusedActivation{false, GeluKind::kErf, 1.0f};
  if (name == "GeluTanh") return FusedActivation{false, GeluKind::kTanh, 1.0f};
  if (name == "Silu") return FusedActivation{false, GeluKind::kSigmoid, 1.0f};
  return std::nullopt;
}

void ApplyActivation(const kernels::GeluKernel& row, const FusedActivation& act, const float* x,
                     const float* mul, float* y, int64_t n, int threads) {
  // Elementwise: chunks of 4096 elements are the unit of work split over threads.
  constexpr int64_t kChunk = 4096;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  ForUnitRanges(chunks, kChunk * 16, threads, [&](int64_t c0, int64_t c1) {
    const kernels::ScopedFlushDenormals ftz;
    const int64_t e0 = c0 * kChunk, e1 = std::min(n, c1 * kChunk);
    kernels::GeluRow r;
    r.n = static_cast<size_t>(e1 - e0);
    r.x = x + e0;
    r.mul = mul != nullptr ? mul + e0 : nullptr;
    r.y = y + e0;
    r.kind = act.kind;
    r.alpha = act.alpha;
    row.ukernel(r);
  });
}

}  // namespace vt::ops
