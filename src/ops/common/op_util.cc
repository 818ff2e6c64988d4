#include "ops/common/op_util.h"

#include "ops/elementwise/cast.h"

#include <cmath>

namespace vt::ops {

Expected<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else
      return InvalidArgument("cannot broadcast shapes " + ShapeToString(a) + " and " +
                             ShapeToString(b));
  }
  return out;
}

Expected<Shape> BroadcastShapes(const std::vector<Shape>& shapes) {
  Shape out;
  for (const auto& s : shapes) {
    VT_ASSIGN_OR_RETURN(out, BroadcastShapes(out, s));
  }
  return out;
}

Expected<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max<int64_t>(rank, 1))
    return OutOfRange("axis " + std::to_string(axis) + " out of range for rank " +
                      std::to_string(rank));
  return a;
}

std::vector<int64_t> ToInt64Vector(const Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.GetInt64(i);
  return v;
}

std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> s(out.size(), 0);
  auto rs = RowMajorStrides(in);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) s[lead + i] = in[i] == 1 ? 0 : rs[i];
  return s;
}

Tensor CastTensor(const Tensor& t, DType to) {
  // Numeric casts cannot fail; the full conversion table lives in ops/cast.h.
  auto r = CastTo(t, to);
  if (r.ok()) return std::move(r).value();
  return Tensor::Zeros(to, t.shape());
}

Tensor ToFloat32(const Tensor& t) { return CastTensor(t, DType::kFloat32); }

}  // namespace vt::ops
