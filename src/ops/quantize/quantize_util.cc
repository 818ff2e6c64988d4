#include "ops/quantize/quantize_util.h"

#include <cstring>

#include "ops/common/op_util.h"

namespace vt::ops {

Status QuantRange(DType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case DType::kUInt8: *lo = 0; *hi = 255; return Status::Ok();
    case DType::kInt8: *lo = -128; *hi = 127; return Status::Ok();
    case DType::kUInt16: *lo = 0; *hi = 65535; return Status::Ok();
    case DType::kInt16: *lo = -32768; *hi = 32767; return Status::Ok();
    case DType::kUInt4: *lo = 0; *hi = 15; return Status::Ok();
    case DType::kInt4: *lo = -8; *hi = 7; return Status::Ok();
    case DType::kInt32:
      *lo = std::numeric_limits<int32_t>::min();
      *hi = std::numeric_limits<int32_t>::max();
      return Status::Ok();
    default:
      return Unimplemented(std::string("quantized dtype ") + DTypeName(t) + " not supported");
  }
}

Tensor AsStorageInts(const Tensor& t) {
  if (t.dtype() == DType::kInt4) return Tensor(DType::kInt8, t.layout(), t.storage());
  if (t.dtype() == DType::kUInt4) return Tensor(DType::kUInt8, t.layout(), t.storage());
  return t;
}

Expected<QuantGeometry> MakeQuantGeometry(const KernelContext& ctx, const Shape& x_shape,
                                          const Tensor& scale, const Tensor* zero_point) {
  QuantGeometry g;
  const int64_t rank = static_cast<int64_t>(x_shape.size());
  if (zero_point != nullptr && zero_point->shape() != scale.shape() &&
      !(zero_point->numel() == 1 && scale.numel() == 1))
    return ctx.Error("zero point shape " + ShapeToString(zero_point->shape()) +
                     " differs from scale shape " + ShapeToString(scale.shape()));
  const int64_t block = ctx.node().GetInt("block_size", 0);
  if (scale.numel() == 1 && scale.rank() <= 1 && block == 0) {
    g.outer = NumElements(x_shape);
    return g;
  }
  if (rank == 0) return ctx.Error("a per-axis scale needs an input of rank >= 1");
  auto axis = NormalizeAxis(ctx.node().GetInt("axis", 1), rank);
  if (!axis.ok()) return ctx.Annotate(axis.take_status());
  for (int64_t d = 0; d < rank; ++d) {
    if (d < *axis) g.outer *= x_shape[static_cast<size_t>(d)];
    else if (d == *axis) g.dim = x_shape[static_cast<size_t>(d)];
    else g.inner *= x_shape[static_cast<size_t>(d)];
  }
  g.per_tensor = false;
  if (block <= 0) {
    if (scale.rank() != 1 || scale.dim(0) != g.dim)
      return ctx.Error("per-axis scale must be 1-D of size " + std::to_string(g.dim) +
                       ", got " + ShapeToString(scale.shape()));
    return g;
  }
  g.block = block;
  g.nblocks = (g.dim + block - 1) / block;
  Shape want = x_shape;
  want[static_cast<size_t>(*axis)] = g.nblocks;
  if (scale.shape() != want)
    return ctx.Error("blocked scale must have shape " + ShapeToString(want) + ", got " +
                     ShapeToString(scale.shape()));
  return g;
}

namespace {

// `v` as float32 rounded to odd (truncated, lowest bit set when inexact): a later
// round-to-nearest into a type of fewer than 23 significant bits then gives the value a single
// rounding of `v` would.
float ToFloatRoundOdd(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(v) || static_cast<double>(f) == v) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u |= 1u;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

double RoundToFloatDType(double v, DType t) {
  switch (t) {
    case DType::kFloat32: return static_cast<float>(v);
    case DType::kFloat16: return HalfToFloat(FloatToHalf(ToFloatRoundOdd(v)));
    case DType::kBFloat16: return BFloat16ToFloat(FloatToBFloat16(ToFloatRoundOdd(v)));
    default: return v;
  }
}

std::vector<float> ToFloatVector(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  if (t.dtype() == DType::kFloat32 && t.is_contiguous()) {
    const float* p = t.data<float>();
    v.assign(p, p + t.numel());
    return v;
  }
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(t.GetDouble(static_cast<int64_t>(i)));
  return v;
}

std::vector<int32_t> ToInt32Vector(const Tensor& t) {
  std::vector<int32_t> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(t.GetInt64(static_cast<int64_t>(i)));
  return v;
}

}  // namespace vt::ops
