// Compress and NonZero (ONNX Operators.md): selection by a boolean mask and the coordinates
// of non-zero elements.
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

template <typename T>
inline bool IsNonZero(const T& v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return (v.bits & 0x7fff) != 0;  // +0 and -0 are zero
  } else if constexpr (std::is_same_v<T, std::string>) {
    return !v.empty();
  } else {
    return v != T{};
  }
}

Status CompressCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor c0, ctx.RequireTensor(1));
  if (c0.rank() != 1) return ctx.Error("condition must be 1-D, got " + ShapeToString(c0.shape()));
  if (c0.dtype() != DType::kBool && !IsIntegerDType(c0.dtype()))
    return ctx.Error(std::string("condition must be bool, got ") + DTypeName(c0.dtype()));
  Tensor x = x0.Contiguous();
  const DType dt = x.dtype();
  const Attribute* axis_attr = ctx.node().FindAttr("axis");
  int64_t axis = -1;
  int64_t outer, dim, inner;
  if (axis_attr) {
    if (x.rank() == 0) return ctx.Error("input must have rank >= 1 when axis is given");
    VT_ASSIGN_OR_RETURN(axis, NormalizeAxisFor(ctx, axis_attr->i, x.rank()));
    outer = DimProduct(x.shape(), 0, static_cast<size_t>(axis));
    dim = x.dim(static_cast<int>(axis));
    inner = DimProduct(x.shape(), static_cast<size_t>(axis) + 1, x.shape().size());
  } else {
    outer = 1;
    dim = x.numel();
    inner = 1;
  }
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < c0.numel(); ++i) {
    if (c0.GetInt64(i) == 0) continue;
    if (i >= dim)
      return ctx.Error("condition selects index " + std::to_string(i) + " beyond axis size " +
                       std::to_string(dim));
    keep.push_back(i);
  }
  const int64_t k = static_cast<int64_t>(keep.size());
  Shape out_shape;
  if (axis_attr) {
    out_shape = x.shape();
    out_shape[static_cast<size_t>(axis)] = k;
  } else {
    out_shape = {k};
  }
  Tensor out = ctx.AllocOutput(0, dt, out_shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < k; ++j)
      CopyElems(dt, ElemPtr(out.raw_mutable_data(), dt, (o * k + j) * inner),
                ElemPtr(x.raw_data(), dt, (o * dim + keep[static_cast<size_t>(j)]) * inner), inner);
  return Status::Ok();
}

Status NonZeroCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  Tensor x = x0.Contiguous();
  const int64_t n = x.numel();
  std::vector<int64_t> flat;
  Status st = DispatchElem<kSetAll>(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* p = x.data<T>();
    for (int64_t i = 0; i < n; ++i)
      if (IsNonZero(p[i])) flat.push_back(i);
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  // A scalar behaves like a 1-element vector (numpy.nonzero on atleast_1d).
  const int rank = std::max(x.rank(), 1);
  const int64_t nnz = static_cast<int64_t>(flat.size());
  Tensor out = ctx.AllocOutput(0, DType::kInt64, {rank, nnz});
  int64_t* po = out.mutable_data<int64_t>();
  const Shape shape = x.rank() == 0 ? Shape{1} : x.shape();
  for (int64_t j = 0; j < nnz; ++j) {
    int64_t f = flat[static_cast<size_t>(j)];
    for (int d = rank - 1; d >= 0; --d) {
      po[d * nnz + j] = f % shape[static_cast<size_t>(d)];
      f /= shape[static_cast<size_t>(d)];
    }
  }
  return Status::Ok();
}

VT_REGISTER_OP("", "Compress", 9, kMaxOpset, CompressCompute);
VT_REGISTER_OP("", "NonZero", 9, kMaxOpset, NonZeroCompute);

}  // namespace
}  // namespace vt::ops
