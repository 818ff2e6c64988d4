// Scatter (deprecated, opset 9-10), ScatterElements and ScatterND (ONNX Operators.md;
// reduction add/mul since opset 16, max/min since 18). The output starts as a copy of
// `data`; updates are applied in index order, so with reduction "none" the last duplicate
// wins. Indices are validated before any write.
#include <algorithm>

#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Expected<Reduction> ParseReduction(const KernelContext& ctx, DType dt) {
  const std::string s = ctx.node().GetString("reduction", "none");
  Reduction r;
  if (s == "none") r = Reduction::kNone;
  else if (s == "add" && ctx.opset() >= 16) r = Reduction::kAdd;
  else if (s == "mul" && ctx.opset() >= 16) r = Reduction::kMul;
  else if (s == "max" && ctx.opset() >= 18) r = Reduction::kMax;
  else if (s == "min" && ctx.opset() >= 18) r = Reduction::kMin;
  else return ctx.Error("unsupported reduction '" + s + "'");
  if (r != Reduction::kNone && dt == DType::kString)
    return ctx.Error("reduction '" + s + "' is not defined for strings");
  return r;
}

template <typename T>
inline void Combine(T& dst, const T& src, Reduction r) {
  if constexpr (std::is_same_v<T, std::string>) {
    dst = src;
  } else {
    using C = ElemTraits<T>;
    using V = ComputeOf<T>;
    const V a = C::Load(dst), b = C::Load(src);
    V v;
    switch (r) {
      case Reduction::kNone: v = b; break;
      case Reduction::kAdd: v = static_cast<V>(a + b); break;
      case Reduction::kMul: v = static_cast<V>(a * b); break;
      case Reduction::kMax: v = std::max(a, b); break;
      case Reduction::kMin: v = std::min(a, b); break;
      default: v = b; break;
    }
    dst = C::Store(v);
  }
}

Status ScatterElementsImpl(KernelContext& ctx, Reduction red) {
  VT_ASSIGN_OR_RETURN(Tensor data, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(auto idx, ReadIndices(ctx, 1, "indices"));
  VT_ASSIGN_OR_RETURN(Tensor upd0, ctx.RequireTensor(2));
  const Tensor upd = upd0.Contiguous();
  const Shape ishape = ctx.input(1).shape();
  const int r = data.rank();
  if (r == 0) return ctx.Error("data must have rank >= 1");
  if (upd.dtype() != data.dtype())
    return ctx.Error(std::string("updates dtype ") + DTypeName(upd.dtype()) +
                     " differs from data dtype " + DTypeName(data.dtype()));
  if (upd.shape() != ishape)
    return ctx.Error("updates shape " + ShapeToString(upd.shape()) + " differs from indices shape " +
                     ShapeToString(ishape));
  VT_ASSIGN_OR_RETURN(int64_t axis, CheckElementsIndices(ctx, data.shape(), ishape, idx));
  const DType dt = data.dtype();
  Tensor out = ctx.AllocOutput(0, dt, data.shape());
  CopyToContiguous(data, out.raw_mutable_data());
  const int64_t n = upd.numel();
  if (n == 0) return Status::Ok();
  const std::vector<int64_t> ostr = RowMajorStrides(data.shape());
  Status st = DispatchElem<kSetAll>(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    T* dst = out.mutable_data<T>();
    const T* src = upd.data<T>();
    std::vector<int64_t> pos(static_cast<size_t>(r), 0);
    const size_t ax = static_cast<size_t>(axis);
    for (int64_t k = 0; k < n; ++k) {
      int64_t off = 0;
      for (size_t d = 0; d < static_cast<size_t>(r); ++d)
        off += (d == ax ? idx[static_cast<size_t>(k)] : pos[d]) * ostr[d];
      Combine(dst[off], src[k], red);
      for (int d = r - 1; d >= 0; --d) {
        if (++pos[static_cast<size_t>(d)] < ishape[static_cast<size_t>(d)]) break;
        pos[static_cast<size_t>(d)] = 0;
      }
    }
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  return Status::Ok();
}

Status ScatterCompute(KernelContext& ctx) { return ScatterElementsImpl(ctx, Reduction::kNone); }

Status ScatterElementsCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor data, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Reduction red, ParseReduction(ctx, data.dtype()));
  return ScatterElementsImpl(ctx, red);
}

Status ScatterNDCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor data, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(auto idx, ReadIndices(ctx, 1, "indices"));
  VT_ASSIGN_OR_RETURN(Tensor upd0, ctx.RequireTensor(2));
  const Tensor upd = upd0.Contiguous();
  VT_ASSIGN_OR_RETURN(Reduction red, ParseReduction(ctx, data.dtype()));
  const Shape ishape = ctx.input(1).shape();
  const int r = data.rank();
  const int q = static_cast<int>(ishape.size());
  if (r < 1 || q < 1) return ctx.Error("data and indices must have rank >= 1");
  if (upd.dtype() != data.dtype())
    return ctx.Error(std::string("updates dtype ") + DTypeName(upd.dtype()) +
                     " differs from data dtype " + DTypeName(data.dtype()));
  const int64_t k = ishape.back();
  if (k < 1 || k > r)
    return ctx.Error("last dim of indices (" + std::to_string(k) + ") must be in [1, " +
                     std::to_string(r) + "]");
  const Shape& ds = data.shape();
  Shape ushape(ishape.begin(), ishape.end() - 1);
  ushape.insert(ushape.end(), ds.begin() + k, ds.end());
  if (upd.shape() != ushape)
    return ctx.Error("updates shape " + ShapeToString(upd.shape()) + " must be " +
                     ShapeToString(ushape));
  const std::vector<int64_t> dstr = RowMajorStrides(ds);
  const int64_t tuples = DimProduct(ishape, 0, ishape.size() - 1);
  const int64_t slice = DimProduct(ds, static_cast<size_t>(k), ds.size());
  std::vector<int64_t> offs(static_cast<size_t>(tuples));
  for (int64_t t = 0; t < tuples; ++t) {
    VT_ASSIGN_OR_RETURN(offs[static_cast<size_t>(t)],
                        IndexTupleOffset(ctx, &idx[static_cast<size_t>(t * k)], k, ds, dstr, 0));
  }
  const DType dt = data.dtype();
  Tensor out = ctx.AllocOutput(0, dt, ds);
  CopyToContiguous(data, out.raw_mutable_data());
  if (slice == 0) return Status::Ok();
  if (red == Reduction::kNone) {
    for (int64_t t = 0; t < tuples; ++t)
      CopyElems(dt, ElemPtr(out.raw_mutable_data(), dt, offs[static_cast<size_t>(t)]),
                ElemPtr(upd.raw_data(), dt, t * slice), slice);
    return Status::Ok();
  }
  Status st = DispatchElem<kSetAll>(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    T* dst = out.mutable_data<T>();
    const T* src = upd.data<T>();
    for (int64_t t = 0; t < tuples; ++t)
      for (int64_t e = 0; e < slice; ++e)
        Combine(dst[offs[static_cast<size_t>(t)] + e], src[t * slice + e], red);
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  return Status::Ok();
}

VT_REGISTER_OP("", "Scatter", 9, kMaxOpset, ScatterCompute);
VT_REGISTER_OP("", "ScatterElements", 11, kMaxOpset, ScatterElementsCompute);
VT_REGISTER_OP("", "ScatterND", 11, kMaxOpset, ScatterNDCompute);

}  // namespace
}  // namespace vt::ops
