#include "ops/common/stack.h"

#include <numeric>
#include <string>

namespace vt::ops {

Expected<Tensor> StackTensors(const std::vector<Tensor>& items, DType dtype,
                              const Shape& elem_shape) {
  if (!items.empty()) {
    dtype = items[0].dtype();
    for (size_t k = 1; k < items.size(); ++k) {
      if (items[k].dtype() != dtype)
        return InvalidArgument("item " + std::to_string(k) + " has dtype " +
                               DTypeName(items[k].dtype()) + ", item 0 has " + DTypeName(dtype));
      if (items[k].shape() != items[0].shape())
        return InvalidArgument("item " + std::to_string(k) + " has shape " +
                               ShapeToString(items[k].shape()) + ", item 0 has " +
                               ShapeToString(items[0].shape()));
    }
  }
  const Shape& es = items.empty() ? elem_shape : items[0].shape();
  Shape shape;
  shape.reserve(es.size() + 1);
  shape.push_back(static_cast<int64_t>(items.size()));
  shape.insert(shape.end(), es.begin(), es.end());
  Tensor out = Tensor::Empty(dtype, shape);
  const size_t item_bytes = static_cast<size_t>(NumElements(es)) * DTypeSize(dtype);
  auto* dst = static_cast<uint8_t*>(out.raw_mutable_data());
  // String elements are std::string objects, so byte offsets of whole items stay valid.
  for (size_t k = 0; k < items.size(); ++k) CopyToContiguous(items[k], dst + k * item_bytes);
  return out;
}

Tensor MoveLeadingAxis(const Tensor& t, int axis) {
  if (axis == 0) return t.Contiguous();
  std::vector<int64_t> perm(static_cast<size_t>(t.rank()));
  // Output dim i takes input dim perm[i]: dims 1..axis shift left, dim 0 lands at `axis`.
  for (int i = 0; i < t.rank(); ++i) {
    if (i < axis) perm[static_cast<size_t>(i)] = i + 1;
    else if (i == axis) perm[static_cast<size_t>(i)] = 0;
    else perm[static_cast<size_t>(i)] = i;
  }
  auto l = t.layout().Transpose(perm);
  return t.WithLayout(std::move(l).value()).Contiguous();
}

Tensor SelectAlongAxis(const Tensor& t, int axis, int64_t index) {
  const Layout& l = t.layout();
  Shape shape;
  std::vector<int64_t> strides;
  for (int d = 0; d < l.rank(); ++d) {
    if (d == axis) continue;
    shape.push_back(l.dim(d));
    strides.push_back(l.strides()[static_cast<size_t>(d)]);
  }
  int64_t offset = l.offset() + index * l.strides()[static_cast<size_t>(axis)];
  auto nl = Layout::Strided(std::move(shape), std::move(strides), offset);
  return t.WithLayout(std::move(nl).value());
}

Tensor NarrowAlongAxis(const Tensor& t, int axis, int64_t start, int64_t count) {
  auto nl = t.layout().Slice(axis, start, 1, count);
  return t.WithLayout(std::move(nl).value());
}

}  // namespace vt::ops
