#include "ops/fused/fused_act.h"

#include "kernels/cpu/flush_denormals.h"
#include "kernels/rowwise/rowwise_table.h"
#include "ops/fused/fused_rows.h"

namespace vt::ops {

std::optional<kernels::RowAct> RowActFromName(const std::string& name) {
  using kernels::RowAct;
  if (name.empty()) return RowAct::kNone;
  if (name == "Relu") return RowAct::kRelu;
  if (name == "Gelu") return RowAct::kGeluErf;
  if (name == "GeluTanh") return RowAct::kGeluTanh;
  if (name == "Silu") return RowAct::kSilu;
  return std::nullopt;
}

void ApplyActivation(kernels::RowAct act, const float* x, const float* bias, const float* mul,
                     float* y, int64_t rows, int64_t n, int threads) {
  const auto& k = kernels::DefaultRowwiseKernel();
  // One row of many elements (an elementwise op over a whole tensor) is cut into chunks.
  const bool flat = rows == 1 && bias == nullptr;
  const int64_t chunk = 4096;
  const int64_t units = flat ? (n + chunk - 1) / chunk : rows;
  ForRowRanges(units, flat ? chunk * 16 : n * 16, threads, [&](int64_t u0, int64_t u1) {
    const kernels::ScopedFlushDenormals ftz;
    kernels::ActRowsCall c;
    c.act = act;
    c.bias = bias;
    if (flat) {
      const int64_t e0 = u0 * chunk, e1 = std::min(n, u1 * chunk);
      c.rows = 1, c.n = static_cast<size_t>(e1 - e0);
      c.x = x + e0, c.y = y + e0, c.mul = mul ? mul + e0 : nullptr;
    } else {
      c.rows = static_cast<size_t>(u1 - u0), c.n = static_cast<size_t>(n);
      c.x = x + u0 * n, c.x_stride = n;
      c.y = y + u0 * n, c.y_stride = n;
      c.mul = mul ? mul + u0 * n : nullptr, c.mul_stride = n;
    }
    k.act(c);
  });
}

}  // namespace vt::ops
