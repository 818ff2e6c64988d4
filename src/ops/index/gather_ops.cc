// Gather, GatherElements, GatherND (ONNX Operators.md; GatherND batch_dims since opset 12).
// Indices may be negative (counted from the end of the indexed dim) and are validated
// before any read. Gather/GatherND copy one contiguous slice per index.
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

Status GatherCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor d0, ctx.RequireTensor(0));
  const Tensor data = d0.Contiguous();
  VT_ASSIGN_OR_RETURN(auto idx, ReadIndices(ctx, 1, "indices"));
  const Shape& ishape = ctx.input(1).shape();
  const int r = data.rank();
  if (r == 0) return ctx.Error("data must have rank >= 1");
  VT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxisFor(ctx, ctx.node().GetInt("axis", 0), r));
  const int64_t dim = data.dim(static_cast<int>(axis));
  VT_RETURN_IF_ERROR(NormalizeIndices(ctx, idx, dim));
  const Shape& ds = data.shape();
  Shape out_shape(ds.begin(), ds.begin() + axis);
  out_shape.insert(out_shape.end(), ishape.begin(), ishape.end());
  out_shape.insert(out_shape.end(), ds.begin() + axis + 1, ds.end());
  const DType dt = data.dtype();
  Tensor out = ctx.AllocOutput(0, dt, out_shape);
  if (out.numel() == 0) return Status::Ok();
  const int64_t outer = DimProduct(ds, 0, static_cast<size_t>(axis));
  const int64_t inner = DimProduct(ds, static_cast<size_t>(axis) + 1, ds.size());
  const int64_t n = static_cast<int64_t>(idx.size());
  if (inner == 1 && dt != DType::kString) {
    return DispatchBySize(dt, [&](auto tag) -> Status {
      using T = decltype(tag);
      const T* src = data.data<T>();
      T* dst = out.mutable_data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < n; ++k) dst[o * n + k] = src[o * dim + idx[static_cast<size_t>(k)]];
      return Status::Ok();
    });
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      CopyElems(dt, ElemPtr(out.raw_mutable_data(), dt, (o * n + k) * inner),
                ElemPtr(data.raw_data(), dt, (o * dim + idx[static_cast<size_t>(k)]) * inner), inner);
  return Status::Ok();
}

Status GatherElementsCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor d0, ctx.RequireTensor(0));
  const Tensor data = d0.Contiguous();
  VT_ASSIGN_OR_RETURN(auto idx, ReadIndices(ctx, 1, "indices"));
  const Shape ishape = ctx.input(1).shape();
  const int r = data.rank();
  if (r == 0) return ctx.Error("data must have rank >= 1");
  VT_ASSIGN_OR_RETURN(int64_t axis, CheckElementsIndices(ctx, data.shape(), ishape, idx));
  const DType dt = data.dtype();
  Tensor out = ctx.AllocOutput(0, dt, ishape);
  const int64_t n = out.numel();
  if (n == 0) return Status::Ok();
  const std::vector<int64_t> dstr = RowMajorStrides(data.shape());
  return DispatchBySize(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* src = data.data<T>();
    T* dst = out.mutable_data<T>();
    std::vector<int64_t> pos(static_cast<size_t>(r), 0);
    const size_t ax = static_cast<size_t>(axis);
    for (int64_t k = 0; k < n; ++k) {
      int64_t off = 0;
      for (size_t d = 0; d < static_cast<size_t>(r); ++d)
        off += (d == ax ? idx[static_cast<size_t>(k)] : pos[d]) * dstr[d];
      dst[k] = src[off];
      for (int d = r - 1; d >= 0; --d) {
        if (++pos[static_cast<size_t>(d)] < ishape[static_cast<size_t>(d)]) break;
        pos[static_cast<size_t>(d)] = 0;
      }
    }
    return Status::Ok();
  });
}

Status GatherNDCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor d0, ctx.RequireTensor(0));
  const Tensor data = d0.Contiguous();
  VT_ASSIGN_OR_RETURN(auto idx, ReadIndices(ctx, 1, "indices"));
  const Shape ishape = ctx.input(1).shape();
  const int r = data.rank();
  const int q = static_cast<int>(ishape.size());
  const int64_t b = ctx.opset() >= 12 ? ctx.node().GetInt("batch_dims", 0) : 0;
  if (r < 1 || q < 1) return ctx.Error("data and indices must have rank >= 1");
  if (b < 0 || b >= std::min(r, q))
    return ctx.Error("batch_dims " + std::to_string(b) + " must be in [0, min(rank(data), rank(indices)))");
  for (int64_t d = 0; d < b; ++d)
    if (ishape[static_cast<size_t>(d)] != data.dim(static_cast<int>(d)))
      return ctx.Error("batch dims of indices " + ShapeToString(ishape) + " and data " +
                       ShapeToString(data.shape()) + " differ");
  const int64_t m = ishape.back();
  if (m < 1 || m > r - b)
    return ctx.Error("last dim of indices (" + std::to_string(m) + ") must be in [1, " +
                     std::to_string(r - b) + "]");
  const Shape& ds = data.shape();
  Shape out_shape(ishape.begin(), ishape.end() - 1);
  out_shape.insert(out_shape.end(), ds.begin() + b + m, ds.end());
  const DType dt = data.dtype();
  Tensor out = ctx.AllocOutput(0, dt, out_shape);
  const int64_t batches = DimProduct(ds, 0, static_cast<size_t>(b));
  const int64_t tuples = DimProduct(ishape, static_cast<size_t>(b), ishape.size() - 1);
  const int64_t slice = DimProduct(ds, static_cast<size_t>(b + m), ds.size());
  const int64_t batch_stride = DimProduct(ds, static_cast<size_t>(b), ds.size());
  const std::vector<int64_t> dstr = RowMajorStrides(ds);
  for (int64_t bi = 0; bi < batches; ++bi) {
    for (int64_t t = 0; t < tuples; ++t) {
      const int64_t* tup = &idx[static_cast<size_t>((bi * tuples + t) * m)];
      VT_ASSIGN_OR_RETURN(int64_t off, IndexTupleOffset(ctx, tup, m, ds, dstr, b));
      CopyElems(dt, ElemPtr(out.raw_mutable_data(), dt, (bi * tuples + t) * slice),
                ElemPtr(data.raw_data(), dt, bi * batch_stride + off), slice);
    }
  }
  return Status::Ok();
}

VT_REGISTER_OP("", "Gather", 1, kMaxOpset, GatherCompute);
VT_REGISTER_OP("", "GatherElements", 11, kMaxOpset, GatherElementsCompute);
VT_REGISTER_OP("", "GatherND", 11, kMaxOpset, GatherNDCompute);

}  // namespace
}  // namespace vt::ops
