#include "vtensor/layout/layout.h"

#include <algorithm>

namespace vt {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
  }
  return s;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Layout Layout::Contiguous(Shape shape) {
  Layout l;
  l.strides_ = RowMajorStrides(shape);
  l.shape_ = std::move(shape);
  return l;
}

Expected<Layout> Layout::Strided(Shape shape, std::vector<int64_t> strides, int64_t offset) {
  if (shape.size() != strides.size())
    return InvalidArgument("layout: rank of shape " + ShapeToString(shape) +
                           " differs from number of strides " + std::to_string(strides.size()));
  for (int64_t d : shape)
    if (d < 0) return InvalidArgument("layout: negative dim in " + ShapeToString(shape));
  Layout l;
  l.shape_ = std::move(shape);
  l.strides_ = std::move(strides);
  l.offset_ = offset;
  return l;
}

bool Layout::is_contiguous() const {
  int64_t acc = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;
    if (shape_[i] == 0) return true;
    if (strides_[i] != acc) return false;
    acc *= shape_[i];
  }
  return true;
}

int64_t Layout::ElementIndex(const int64_t* idx) const {
  int64_t e = offset_;
  for (size_t i = 0; i < shape_.size(); ++i) e += idx[i] * strides_[i];
  return e;
}

Expected<Layout> Layout::Transpose(const std::vector<int64_t>& perm) const {
  if (perm.size() != shape_.size())
    return InvalidArgument("transpose: perm size " + std::to_string(perm.size()) +
                           " != rank " + std::to_string(shape_.size()));
  std::vector<bool> seen(perm.size(), false);
  Layout l;
  l.offset_ = offset_;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank() || seen[static_cast<size_t>(p)])
      return InvalidArgument("transpose: invalid permutation");
    seen[static_cast<size_t>(p)] = true;
    l.shape_.push_back(shape_[static_cast<size_t>(p)]);
    l.strides_.push_back(strides_[static_cast<size_t>(p)]);
  }
  return l;
}

Expected<Layout> Layout::Slice(int axis, int64_t start, int64_t step, int64_t count) const {
  if (axis < 0 || axis >= rank()) return InvalidArgument("slice: axis out of range");
  if (step == 0) return InvalidArgument("slice: step 0");
  if (count < 0) return InvalidArgument("slice: negative count");
  Layout l = *this;
  size_t a = static_cast<size_t>(axis);
  if (count > 0) {
    int64_t last = start + (count - 1) * step;
    if (start < 0 || start >= shape_[a] || last < 0 || last >= shape_[a])
      return OutOfRange("slice: range outside dim");
    l.offset_ += start * strides_[a];
  }
  l.shape_[a] = count;
  l.strides_[a] = strides_[a] * step;
  return l;
}

Expected<Layout> Layout::BroadcastTo(const Shape& target) const {
  if (target.size() < shape_.size())
    return InvalidArgument("broadcast: target rank smaller than source");
  Layout l;
  l.offset_ = offset_;
  l.shape_ = target;
  l.strides_.assign(target.size(), 0);
  size_t lead = target.size() - shape_.size();
  for (size_t i = 0; i < shape_.size(); ++i) {
    int64_t s = shape_[i], t = target[lead + i];
    if (s == t) {
      l.strides_[lead + i] = strides_[i];
    } else if (s == 1) {
      l.strides_[lead + i] = 0;
    } else {
      return InvalidArgument("broadcast: cannot broadcast " + ShapeToString(shape_) + " to " +
                             ShapeToString(target));
    }
  }
  return l;
}

}  // namespace vt
