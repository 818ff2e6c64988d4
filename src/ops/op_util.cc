#include "ops/op_util.h"

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

namespace {
template <typename Src, typename Dst>
void CastLoop(const Src* s, Dst* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = static_cast<Dst>(s[i]);
}
}  // namespace

Tensor CastTensor(const Tensor& in, DType to) {
  Tensor src = in.Contiguous();
  if (src.dtype() == to) return src;
  Tensor out = Tensor::Empty(to, src.shape());
  const int64_t n = src.numel();
  // Generic path through double (exact for all integers up to 2^53 and all floats).
  if (to == DType::kFloat32) {
    float* o = out.mutable_data<float>();
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>(src.GetDouble(i));
  } else if (to == DType::kFloat64) {
    double* o = out.mutable_data<double>();
    for (int64_t i = 0; i < n; ++i) o[i] = src.GetDouble(i);
  } else if (to == DType::kInt64) {
    int64_t* o = out.mutable_data<int64_t>();
    for (int64_t i = 0; i < n; ++i) o[i] = src.GetInt64(i);
  } else if (to == DType::kInt32) {
    int32_t* o = out.mutable_data<int32_t>();
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<int32_t>(src.GetInt64(i));
  }
  return out;
}

Tensor ToFloat32(const Tensor& t) { return CastTensor(t, DType::kFloat32); }

}  // namespace vt::ops
