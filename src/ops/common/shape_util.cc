#include "ops/common/shape_util.h"

#include <cmath>
#include <limits>

#include "vtensor/layout/minifloat.h"

namespace vt::ops {

int64_t DimProduct(const Shape& shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i) n *= shape[i];
  return n;
}

Expected<std::vector<int64_t>> ReadIntList(const KernelContext& ctx, size_t i, const char* what) {
  if (!ctx.has_input(i) || !ctx.input_value(i)->is_tensor())
    return ctx.Error(std::string("input '") + what + "' is required");
  const Tensor& t = ctx.input(i);
  if (!IsIndexDType(t.dtype()))
    return ctx.Error(std::string("input '") + what + "' must be int32 or int64, got " +
                     DTypeName(t.dtype()));
  if (t.rank() > 1)
    return ctx.Error(std::string("input '") + what + "' must be 1-D, got shape " +
                     ShapeToString(t.shape()));
  return ToInt64Vector(t);
}

Status NormalizeIndex(const KernelContext& ctx, int64_t& v, int64_t dim) {
  const int64_t orig = v;
  if (v < 0) v += dim;
  if (v >= 0 && v < dim) return Status::Ok();
  return ctx.Error("index " + std::to_string(orig) + " out of range for dim of size " +
                   std::to_string(dim));
}

Status NormalizeIndices(const KernelContext& ctx, std::vector<int64_t>& idx, int64_t dim) {
  for (auto& v : idx) VT_RETURN_IF_ERROR(NormalizeIndex(ctx, v, dim));
  return Status::Ok();
}

Expected<int64_t> CheckElementsIndices(const KernelContext& ctx, const Shape& dshape,
                                       const Shape& ishape, std::vector<int64_t>& idx) {
  const int r = static_cast<int>(dshape.size());
  if (static_cast<int>(ishape.size()) != r)
    return ctx.Error("indices rank " + std::to_string(ishape.size()) + " differs from data rank " +
                     std::to_string(r));
  VT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxisFor(ctx, ctx.node().GetInt("axis", 0), r));
  for (int d = 0; d < r; ++d)
    if (d != axis && ishape[static_cast<size_t>(d)] > dshape[static_cast<size_t>(d)])
      return ctx.Error("indices shape " + ShapeToString(ishape) + " exceeds data shape " +
                       ShapeToString(dshape) + " on axis " + std::to_string(d));
  VT_RETURN_IF_ERROR(NormalizeIndices(ctx, idx, dshape[static_cast<size_t>(axis)]));
  return axis;
}

Expected<int64_t> IndexTupleOffset(const KernelContext& ctx, const int64_t* tup, int64_t m,
                                   const Shape& shape, const std::vector<int64_t>& strides,
                                   int64_t first) {
  int64_t off = 0;
  for (int64_t j = 0; j < m; ++j) {
    const size_t d = static_cast<size_t>(first + j);
    int64_t v = tup[j];
    VT_RETURN_IF_ERROR(NormalizeIndex(ctx, v, shape[d]));
    off += v * strides[d];
  }
  return off;
}

Expected<std::vector<int64_t>> ReadIndices(const KernelContext& ctx, size_t i, const char* what) {
  if (!ctx.has_input(i) || !ctx.input_value(i)->is_tensor())
    return ctx.Error(std::string("input '") + what + "' is required");
  const Tensor t = ctx.input(i).Contiguous();
  const int64_t n = t.numel();
  std::vector<int64_t> v(static_cast<size_t>(n));
  if (t.dtype() == DType::kInt64) {
    if (n) std::memcpy(v.data(), t.data<int64_t>(), static_cast<size_t>(n) * 8);
  } else if (t.dtype() == DType::kInt32) {
    const int32_t* p = t.data<int32_t>();
    for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = p[k];
  } else {
    return ctx.Error(std::string("input '") + what + "' must be int32 or int64, got " +
                     DTypeName(t.dtype()));
  }
  return v;
}

namespace {
Status CheckScalarInput(const KernelContext& ctx, size_t i, const char* what) {
  if (!ctx.has_input(i) || !ctx.input_value(i)->is_tensor())
    return ctx.Error(std::string("input '") + what + "' is required");
  const Tensor& t = ctx.input(i);
  if (t.numel() != 1 || t.rank() > 1)
    return ctx.Error(std::string("input '") + what + "' must be a scalar, got shape " +
                     ShapeToString(t.shape()));
  if (t.dtype() == DType::kString || t.dtype() == DType::kComplex64 ||
      t.dtype() == DType::kComplex128 || t.dtype() == DType::kUndefined)
    return ctx.Error(std::string("input '") + what + "' must be numeric, got " +
                     DTypeName(t.dtype()));
  return Status::Ok();
}
}  // namespace

Expected<int64_t> ReadIntScalar(const KernelContext& ctx, size_t i, const char* what) {
  VT_RETURN_IF_ERROR(CheckScalarInput(ctx, i, what));
  const Tensor& t = ctx.input(i);
  if (IsFloatDType(t.dtype())) {
    double d = t.GetDouble(0);
    if (!std::isfinite(d) || std::fabs(d) > 9.0e18)
      return ctx.Error(std::string("input '") + what + "' is not a finite integer");
    return static_cast<int64_t>(d);
  }
  return t.GetInt64(0);
}

Expected<double> ReadDoubleScalar(const KernelContext& ctx, size_t i, const char* what) {
  VT_RETURN_IF_ERROR(CheckScalarInput(ctx, i, what));
  return ctx.input(i).GetDouble(0);
}

Expected<int64_t> NormalizeAxisFor(const KernelContext& ctx, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return ctx.Error("axis " + std::to_string(axis) + " out of range for rank " +
                     std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

Expected<std::vector<int64_t>> NormalizeAxisList(const KernelContext& ctx,
                                                 const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
  for (int64_t a : axes) {
    VT_ASSIGN_OR_RETURN(int64_t n, NormalizeAxisFor(ctx, a, rank));
    if (seen[static_cast<size_t>(n)]) return ctx.Error("axis " + std::to_string(a) + " repeated");
    seen[static_cast<size_t>(n)] = true;
    out.push_back(n);
  }
  return out;
}

Status CheckOutputShape(const KernelContext& ctx, const Shape& shape) {
  // 2^32 elements (16-32 GiB for 4/8-byte types): larger requests come from corrupt or
  // hostile shapes and would otherwise end in an allocation failure.
  constexpr int64_t kMaxElems = int64_t{1} << 32;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return ctx.Error("negative output dimension in " + ShapeToString(shape));
    if (d == 0) return Status::Ok();
  }
  for (int64_t d : shape) {
    if (n > kMaxElems / d) return ctx.Error("output shape " + ShapeToString(shape) + " is too large");
    n *= d;
  }
  return Status::Ok();
}

Status StoreDouble(DType dt, void* dst, double v) {
  switch (dt) {
    case DType::kFloat32: *static_cast<float*>(dst) = static_cast<float>(v); return Status::Ok();
    case DType::kFloat64: *static_cast<double*>(dst) = v; return Status::Ok();
    case DType::kFloat16:
      *static_cast<uint16_t*>(dst) = FloatToHalf(static_cast<float>(v));
      return Status::Ok();
    case DType::kBFloat16:
      *static_cast<uint16_t*>(dst) = FloatToBFloat16(static_cast<float>(v));
      return Status::Ok();
    case DType::kBool: *static_cast<uint8_t*>(dst) = v != 0 ? 1 : 0; return Status::Ok();
    case DType::kInt4: case DType::kUInt4: {  // one per byte in memory (layout/dtype.h)
      const double lo = dt == DType::kInt4 ? -8 : 0, hi = dt == DType::kInt4 ? 7 : 15;
      const double c = std::isnan(v) ? 0.0 : std::min(std::max(v, lo), hi);
      *static_cast<int8_t*>(dst) = static_cast<int8_t>(c);
      return Status::Ok();
    }
    default:
      if (IsMiniFloatDType(dt)) {
        *static_cast<uint8_t*>(dst) = FloatToMiniFloat(dt, v, /*saturate=*/true);
        return Status::Ok();
      }
      break;
  }
  return DispatchElem<kSetInt>(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    double hi = static_cast<double>(std::numeric_limits<T>::max());
    double c = std::isnan(v) ? 0.0 : std::min(std::max(v, lo), hi);
    // The clamp in double may round hi up past the type's range (int64/uint64).
    T out = c >= hi ? std::numeric_limits<T>::max() : static_cast<T>(c);
    std::memcpy(dst, &out, sizeof(T));
    return Status::Ok();
  });
}

std::vector<float> TensorToFloats(const Tensor& t) {
  const Tensor c = t.Contiguous();
  const int64_t n = c.numel();
  std::vector<float> v(static_cast<size_t>(n));
  if (c.dtype() == DType::kFloat32) {
    if (n) std::memcpy(v.data(), c.data<float>(), static_cast<size_t>(n) * 4);
  } else if (c.dtype() == DType::kFloat16) {
    const uint16_t* p = c.data<uint16_t>();
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = HalfToFloat(p[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(c.GetDouble(i));
  }
  return v;
}

void FloatsToTensor(const float* src, Tensor& dst) {
  const int64_t n = dst.numel();
  const DType dt = dst.dtype();
  if (dt == DType::kFloat32) {
    if (n) std::memcpy(dst.mutable_data<float>(), src, static_cast<size_t>(n) * 4);
    return;
  }
  uint8_t* base = static_cast<uint8_t*>(dst.raw_mutable_data());
  const size_t es = DTypeSize(dt);
  const bool integral = IsIntegerDType(dt);
  for (int64_t i = 0; i < n; ++i) {
    double v = src[i];
    if (integral) v = std::nearbyint(v);
    (void)StoreDouble(dt, base + static_cast<size_t>(i) * es, v);
  }
}

}  // namespace vt::ops
