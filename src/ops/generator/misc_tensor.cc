// Tensor generators: ConstantOfShape, Range, EyeLike, and the triangular mask Trilu
// (ONNX Operators.md entries of the same names).
#include <cmath>

#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

Status ConstantOfShapeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor s0, ctx.RequireTensor(0));
  if (s0.dtype() != DType::kInt64) return ctx.Error("shape input must be int64");
  VT_ASSIGN_OR_RETURN(auto shape, ReadIntList(ctx, 0, "input"));
  VT_RETURN_IF_ERROR(CheckOutputShape(ctx, shape));
  Tensor value = Tensor::Zeros(DType::kFloat32, {});
  if (const Attribute* a = ctx.node().FindAttr("value")) {
    if (!a->t.defined() || a->t.numel() != 1)
      return ctx.Error("attribute 'value' must be a one-element tensor");
    value = a->t.Contiguous();
  }
  const DType dt = value.dtype();
  Tensor out = ctx.AllocOutput(0, dt, shape);
  const int64_t n = out.numel();
  return DispatchBySize(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    const T v = value.data<T>()[0];
    T* p = out.mutable_data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = v;
    return Status::Ok();
  });
}

Status RangeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor st, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor li, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor de, ctx.RequireTensor(2));
  const DType dt = st.dtype();
  if (li.dtype() != dt || de.dtype() != dt)
    return ctx.Error("start, limit and delta must have the same dtype");
  for (const Tensor* t : {&st, &li, &de})
    if (t->numel() != 1 || t->rank() > 1) return ctx.Error("start, limit and delta must be scalars");
  Status s = DispatchElem<kSetFloatInt>(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    int64_t n;
    if constexpr (std::is_integral_v<T>) {
      const int64_t a = st.GetInt64(0), b = li.GetInt64(0), d = de.GetInt64(0);
      if (d == 0) return ctx.Error("delta must not be zero");
      // ceil((b - a) / d) in integers, computed in 128 bits to avoid overflow.
      const __int128 diff = static_cast<__int128>(b) - a;
      __int128 q = diff / d;
      if ((diff % d != 0) && ((diff > 0) == (d > 0))) ++q;
      n = q > 0 ? static_cast<int64_t>(std::min<__int128>(q, int64_t{1} << 40)) : 0;
    } else {
      const double a = st.GetDouble(0), b = li.GetDouble(0), d = de.GetDouble(0);
      if (d == 0 || !std::isfinite(a) || !std::isfinite(b) || !std::isfinite(d))
        return ctx.Error("start, limit and delta must be finite and delta non-zero");
      const double q = std::ceil((b - a) / d);
      n = q > 0 ? static_cast<int64_t>(std::min(q, 1099511627776.0)) : 0;
    }
    VT_RETURN_IF_ERROR(CheckOutputShape(ctx, {n}));
    if (n >= (int64_t{1} << 40)) return ctx.Error("range is too large");
    Tensor out = ctx.AllocOutput(0, dt, {n});
    T* p = out.mutable_data<T>();
    const T a = static_cast<T>(st.GetDouble(0));
    if constexpr (std::is_integral_v<T>) {
      const int64_t a64 = st.GetInt64(0), d64 = de.GetInt64(0);
      for (int64_t i = 0; i < n; ++i)
        p[i] = static_cast<T>(static_cast<__int128>(a64) + static_cast<__int128>(i) * d64);
    } else {
      const T d = static_cast<T>(de.GetDouble(0));
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(a + static_cast<T>(i) * d);
    }
    return Status::Ok();
  });
  return ctx.Annotate(std::move(s));
}

Status EyeLikeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  if (x.rank() != 2) return ctx.Error("input must be 2-D, got " + ShapeToString(x.shape()));
  DType dt = x.dtype();
  if (const Attribute* a = ctx.node().FindAttr("dtype")) {
    if (!IsKnownDType(static_cast<int32_t>(a->i))) return ctx.Error("unknown dtype " + std::to_string(a->i));
    dt = static_cast<DType>(a->i);
  }
  if (dt == DType::kString || DTypeSize(dt) == 0 || dt == DType::kComplex64 || dt == DType::kComplex128)
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt));
  const int64_t k = ctx.node().GetInt("k", 0);
  Tensor out = ctx.AllocOutput(0, dt, x.shape());
  const int64_t rows = x.dim(0), cols = x.dim(1);
  if (out.numel()) std::memset(out.raw_mutable_data(), 0, out.nbytes());
  uint8_t one[8];
  VT_RETURN_IF_ERROR(StoreDouble(dt, one, 1.0));
  if (k > -rows && k < cols) {  // otherwise the diagonal misses the matrix
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t j = i + k;
      if (j >= 0 && j < cols)
        std::memcpy(ElemPtr(out.raw_mutable_data(), dt, i * cols + j), one, DTypeSize(dt));
    }
  }
  return Status::Ok();
}

Status TriluCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = x0.Contiguous();
  if (x.rank() < 2) return ctx.Error("input must have rank >= 2, got " + ShapeToString(x.shape()));
  int64_t k = 0;
  if (ctx.has_input(1) && ctx.input_value(1)->is_tensor()) {
    VT_ASSIGN_OR_RETURN(k, ReadIntScalar(ctx, 1, "k"));
  }
  const bool upper = ctx.node().GetInt("upper", 1) != 0;
  const DType dt = x.dtype();
  Tensor out = ctx.AllocOutput(0, dt, x.shape());
  const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
  const int64_t mats = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  return DispatchBySize(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* src = x.data<T>();
    T* dst = out.mutable_data<T>();
    for (int64_t m = 0; m < mats; ++m)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t e = (m * rows + i) * cols + j;
          const bool keep = upper ? (j - i >= k) : (j - i <= k);
          dst[e] = keep ? src[e] : T{};
        }
    return Status::Ok();
  });
}

VT_REGISTER_OP("", "ConstantOfShape", 9, kMaxOpset, ConstantOfShapeCompute);
VT_REGISTER_OP("", "Range", 11, kMaxOpset, RangeCompute);
VT_REGISTER_OP("", "EyeLike", 9, kMaxOpset, EyeLikeCompute);
VT_REGISTER_OP("", "Trilu", 14, kMaxOpset, TriluCompute);

}  // namespace
}  // namespace vt::ops
