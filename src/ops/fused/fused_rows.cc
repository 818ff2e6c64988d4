#include "ops/fused/fused_rows.h"

namespace vt::ops {

F32Rows AsF32Rows(const Tensor& t0) {
  F32Rows r;
  const int rank = t0.rank();
  r.n = t0.dim(rank - 1);
  r.rows = r.n == 0 ? 0 : t0.numel() / r.n;
  const Layout& l = t0.layout();
  bool ok = l.is_strided() && (r.n <= 1 || l.strides()[static_cast<size_t>(rank - 1)] == 1);
  // The leading dims collapse into one row stride when each steps over the next exactly
  // (dims of extent 1 do not matter).
  ptrdiff_t stride = r.n;
  if (ok) {
    int64_t expect = -1;
    for (int d = rank - 2; d >= 0 && ok; --d) {
      if (t0.dim(d) == 1) continue;
      const int64_t s = l.strides()[static_cast<size_t>(d)];
      if (expect < 0) {
        stride = s;
        expect = s * t0.dim(d);
      } else {
        ok = s == expect;
        expect = s * t0.dim(d);
      }
    }
  }
  if (ok) {
    r.data = t0.data<float>();
    r.stride = stride;
    return r;
  }
  r.keep = t0.Contiguous();
  r.data = r.keep.data<float>();
  r.stride = r.n;
  return r;
}

}  // namespace vt::ops
