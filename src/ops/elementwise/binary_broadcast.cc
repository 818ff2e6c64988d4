#include "ops/elementwise/binary_broadcast.h"

namespace vt::ops {

bool CpuHasAvx2() {
#if VT_ELEMENTWISE_AVX2_CLONES
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

Expected<BroadcastPlan> MakeBroadcastPlan(const Shape& out, const std::vector<const Layout*>& ops) {
  const int n = static_cast<int>(ops.size());
  if (n < 1 || n > kMaxOperands)
    return InvalidArgument("broadcast plan: " + std::to_string(n) + " operands (1.." +
                           std::to_string(kMaxOperands) + " supported)");
  BroadcastPlan p;
  p.num_operands = n;
  p.numel = NumElements(out);
  const size_t r = out.size();
  for (int k = 0; k < n; ++k) {
    if (ops[static_cast<size_t>(k)]->shape().size() > r)
      return InvalidArgument("cannot broadcast " +
                             ShapeToString(ops[static_cast<size_t>(k)]->shape()) + " to " +
                             ShapeToString(out));
  }
  p.dims.reserve(r);
  p.strides.reserve(r * static_cast<size_t>(n));
  std::vector<int64_t> s(static_cast<size_t>(n));
  for (size_t d = 0; d < r; ++d) {
    for (int k = 0; k < n; ++k) {
      const Layout& l = *ops[static_cast<size_t>(k)];
      const size_t lead = r - l.shape().size();
      int64_t st = 0;
      if (d >= lead) {
        const int64_t dim = l.shape()[d - lead];
        if (dim != 1 && dim != out[d])
          return InvalidArgument("cannot broadcast " + ShapeToString(l.shape()) + " to " +
                                 ShapeToString(out));
        if (dim != 1) st = l.strides()[d - lead];
      }
      s[static_cast<size_t>(k)] = st;
    }
    // Size-1 output dims never advance any operand.
    if (out[d] == 1) continue;
    // Merge with the previous kept dim when every operand walks both as one contiguous run.
    if (!p.dims.empty()) {
      const size_t prev = p.dims.size() - 1;
      bool mergeable = true;
      for (int k = 0; k < n && mergeable; ++k)
        mergeable = p.strides[prev * static_cast<size_t>(n) + static_cast<size_t>(k)] ==
                    s[static_cast<size_t>(k)] * out[d];
      if (mergeable) {
        p.dims[prev] *= out[d];
        for (int k = 0; k < n; ++k)
          p.strides[prev * static_cast<size_t>(n) + static_cast<size_t>(k)] =
              s[static_cast<size_t>(k)];
        continue;
      }
    }
    p.dims.push_back(out[d]);
    p.strides.insert(p.strides.end(), s.begin(), s.end());
  }
  if (p.dims.empty()) {
    p.dims.push_back(1);
    p.strides.assign(static_cast<size_t>(n), 0);
  }
  return p;
}

}  // namespace vt::ops
