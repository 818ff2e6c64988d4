// AffineGrid (ONNX Operators.md "AffineGrid", opset 20). theta [N, 2, 3] with size
// (N, C, H, W) gives grid [N, H, W, 2]; theta [N, 3, 4] with size (N, C, D, H, W) gives
// grid [N, D, H, W, 3]. Each grid entry is theta * [x, y, (z), 1]: x runs along W, y along H,
// z along D, each over n evenly spaced points in [-1, 1]: align_corners=1 puts the ends on the
// corner pixel centres (-1 + 2i / (n - 1); a single point is -1, as in ONNX's reference),
// align_corners=0 on their outer edges (-1 + (2i + 1) / n). Sums are taken in double and
// rounded once to the element type (float32, float64, float16, bfloat16).
#include <string>

#include "ops/contrib/contrib_inputs.h"
#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

std::vector<double> BaseCoords(int64_t n, bool align_corners) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] =
        align_corners ? (n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1))
                      : -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n);
  return v;
}

Status AffineGridCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor theta0, RequiredInput(ctx, 0, "theta"));
  VT_ASSIGN_OR_RETURN(Tensor size_t0, RequiredInput(ctx, 1, "size"));
  VT_RETURN_IF_ERROR(ExpectFloat(ctx, theta0, 0, "theta"));
  if (size_t0.dtype() != DType::kInt64 || size_t0.rank() != 1 ||
      (size_t0.dim(0) != 4 && size_t0.dim(0) != 5))
    return ctx.Error(InputLabel(1, "size") + " must be int64 of shape [4] or [5], got " +
                     DTypeName(size_t0.dtype()) + " " + ShapeToString(size_t0.shape()));
  const std::vector<int64_t> size = ToInt64Vector(size_t0);
  const int64_t k = static_cast<int64_t>(size.size()) - 2;  // spatial axes: 2 or 3
  const int64_t n = size[0];
  if (theta0.rank() != 3 || theta0.dim(0) != n || theta0.dim(1) != k || theta0.dim(2) != k + 1)
    return ctx.Error(InputLabel(0, "theta") + ": expected shape [" + std::to_string(n) + "," +
                     std::to_string(k) + "," + std::to_string(k + 1) + "] for size " +
                     ShapeToString(Shape(size.begin(), size.end())) + ", got " +
                     ShapeToString(theta0.shape()));
  for (int64_t d = 2; d < k + 2; ++d)
    if (size[static_cast<size_t>(d)] < 0)
      return ctx.Error(InputLabel(1, "size") + " has a negative spatial size " +
                       std::to_string(size[static_cast<size_t>(d)]));
  const bool ac = ctx.node().GetInt("align_corners", 0) != 0;
  // Spatial sizes outermost first: (H, W) or (D, H, W); coordinate 0 (x) runs along the last.
  const std::vector<int64_t> sp(size.begin() + 2, size.end());
  std::vector<std::vector<double>> base;
  base.reserve(sp.size());
  for (int64_t s : sp) base.push_back(BaseCoords(s, ac));
  int64_t points = 1;
  for (int64_t s : sp) points *= s;
  Shape out{n};
  out.insert(out.end(), sp.begin(), sp.end());
  out.push_back(k);
  const Tensor theta = CastTensor(theta0, DType::kFloat64);
  const double* th = theta.data<double>();
  Tensor grid = Tensor::Empty(DType::kFloat64, out);
  double* g = grid.mutable_data<double>();
  std::vector<double> pos(static_cast<size_t>(k));
  for (int64_t b = 0; b < n; ++b) {
    const double* t = th + b * k * (k + 1);
    for (int64_t p = 0; p < points; ++p) {
      int64_t rem = p;
      for (int64_t a = k; a-- > 0;) {  // a: spatial axis, outermost first
        const int64_t i = rem % sp[static_cast<size_t>(a)];
        rem /= sp[static_cast<size_t>(a)];
        pos[static_cast<size_t>(k - 1 - a)] = base[static_cast<size_t>(a)][static_cast<size_t>(i)];
      }
      double* o = g + (b * points + p) * k;
      for (int64_t r = 0; r < k; ++r) {
        double acc = t[r * (k + 1) + k];
        for (int64_t c = 0; c < k; ++c) acc += t[r * (k + 1) + c] * pos[static_cast<size_t>(c)];
        o[r] = acc;
      }
    }
  }
  ctx.SetOutput(0, Value(CastTensor(grid, theta0.dtype())));
  return Status::Ok();
}

VT_REGISTER_OP("", "AffineGrid", 20, kMaxOpset, AffineGridCompute);

}  // namespace
}  // namespace vt::ops
