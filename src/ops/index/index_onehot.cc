// OneHot (ONNX Operators.md "OneHot", opset 9/11): indices outside [-depth, depth-1] give
// an all-off row; non-integer indices and depth are truncated to int64.
#include <cmath>

#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

Status OneHotCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor ind0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor vals0, ctx.RequireTensor(2));
  if (ind0.dtype() == DType::kString || ind0.dtype() == DType::kBool)
    return ctx.Error(std::string("indices must be numeric, got ") + DTypeName(ind0.dtype()));
  VT_ASSIGN_OR_RETURN(double depth_d, ReadDoubleScalar(ctx, 1, "depth"));
  if (!std::isfinite(depth_d) || depth_d < 1 || depth_d > static_cast<double>(int64_t{1} << 40))
    return ctx.Error("depth must be a positive integer, got " + std::to_string(depth_d));
  const int64_t depth = static_cast<int64_t>(depth_d);
  const Tensor vals = vals0.Contiguous();
  if (vals.numel() != 2) return ctx.Error("values must have two elements [off, on]");
  const int r = ind0.rank();
  VT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxisFor(ctx, ctx.node().GetInt("axis", -1), r + 1));
  Shape out_shape = ind0.shape();
  out_shape.insert(out_shape.begin() + axis, depth);
  VT_RETURN_IF_ERROR(CheckOutputShape(ctx, out_shape));
  const DType dt = vals.dtype();
  Tensor out = ctx.AllocOutput(0, dt, out_shape);
  const int64_t n = ind0.numel();
  const int64_t outer = DimProduct(ind0.shape(), 0, static_cast<size_t>(axis));
  const int64_t inner = DimProduct(ind0.shape(), static_cast<size_t>(axis), ind0.shape().size());
  const Tensor ind = ind0.Contiguous();
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double v = ind.GetDouble(i);
    int64_t k = std::isfinite(v) && std::fabs(v) < 9.0e18 ? ind.GetInt64(i) : depth;
    if (k < 0) k += depth;
    idx[static_cast<size_t>(i)] = k >= 0 && k < depth ? k : -1;
  }
  return DispatchBySize(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    const T off = vals.data<T>()[0], on = vals.data<T>()[1];
    T* po = out.mutable_data<T>();
    const int64_t total = out.numel();
    for (int64_t i = 0; i < total; ++i) po[i] = off;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = idx[static_cast<size_t>(o * inner + i)];
        if (k >= 0) po[(o * depth + k) * inner + i] = on;
      }
    return Status::Ok();
  });
}

VT_REGISTER_OP("", "OneHot", 9, kMaxOpset, OneHotCompute);

}  // namespace
}  // namespace vt::ops
