// Det-11 (ONNX Operators.md): determinant of each trailing [M, M] matrix of X [*, M, M]; the
// output has shape [*]. LU decomposition with partial pivoting in double precision.
#include <cmath>

#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"

namespace vt::ops {
namespace {

double Determinant(std::vector<double>& a, int64_t n) {
  double det = 1.0;
  for (int64_t c = 0; c < n; ++c) {
    int64_t piv = c;
    for (int64_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r * n + c]) > std::fabs(a[piv * n + c])) piv = r;
    if (a[piv * n + c] == 0.0) return 0.0;
    if (piv != c) {
      for (int64_t k = 0; k < n; ++k) std::swap(a[c * n + k], a[piv * n + k]);
      det = -det;
    }
    const double d = a[c * n + c];
    det *= d;
    for (int64_t r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / d;
      if (f == 0.0) continue;
      for (int64_t k = c + 1; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
    }
  }
  return det;
}

Status DetCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  if (!IsFloatDType(x.dtype()))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(x.dtype()) + " not supported");
  const int r = x.rank();
  if (r < 2 || x.dim(r - 1) != x.dim(r - 2))
    return ctx.Error("input must be [*, M, M], got " + ShapeToString(x.shape()));
  const int64_t n = x.dim(r - 1);
  Shape out_shape(x.shape().begin(), x.shape().end() - 2);
  const int64_t count = NumElements(out_shape);
  const std::vector<double> v = ToDoubleVector(x);
  std::vector<double> dets(static_cast<size_t>(count));
  std::vector<double> m(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < count; ++b) {
    std::copy(v.begin() + b * n * n, v.begin() + (b + 1) * n * n, m.begin());
    dets[static_cast<size_t>(b)] = Determinant(m, n);
  }
  Tensor y = ctx.AllocOutput(0, x.dtype(), out_shape);
  StoreDoubles(y, dets);
  return Status::Ok();
}

VT_REGISTER_OP("", "Det", 11, kMaxOpset, DetCompute);

}  // namespace
}  // namespace vt::ops
