// Layout: where logical element (i0..in-1) of a tensor lives in its storage (DESIGN §2).
//
// The logical shape is never reordered. The physical placement of a dense strided tensor is
// one stride per logical dim (in elements, may be 0 for broadcast or negative for reversed
// slices) plus an element offset. Transpose, slice and broadcast are stride changes and never
// copy. Packed/blocked physical forms (tiles, block order) extend this type in layout/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtensor/base/status.h"

namespace vt {

using Shape = std::vector<int64_t>;

// Number of elements of `shape` (1 for rank 0). Callers validate dims are >= 0.
int64_t NumElements(const Shape& shape);
// Row-major (C order) strides in elements.
std::vector<int64_t> RowMajorStrides(const Shape& shape);
// "[1,3,224,224]"
std::string ShapeToString(const Shape& shape);

class Layout {
 public:
  Layout() = default;  // rank-0 contiguous

  // Row-major contiguous layout of `shape`, offset 0.
  static Layout Contiguous(Shape shape);
  // Arbitrary strided layout. Errors: InvalidArgument when ranks differ or a dim is negative.
  static Expected<Layout> Strided(Shape shape, std::vector<int64_t> strides, int64_t offset);

  const Shape& shape() const { return shape_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t numel() const { return NumElements(shape_); }

  // True when elements are dense row-major starting at offset().
  bool is_contiguous() const;

  // Element index (relative to storage start) of the logical index `idx` (size rank()).
  int64_t ElementIndex(const int64_t* idx) const;

  // perm[i] = input dim placed at output dim i. Errors: InvalidArgument for a bad permutation.
  Expected<Layout> Transpose(const std::vector<int64_t>& perm) const;
  // Keeps `count` elements of `axis` starting at `start` with `step` (step != 0).
  Expected<Layout> Slice(int axis, int64_t start, int64_t step, int64_t count) const;
  // Numpy-style broadcast to `target` (rank >= rank()); broadcast dims get stride 0.
  Expected<Layout> BroadcastTo(const Shape& target) const;

  bool operator==(const Layout& o) const {
    return shape_ == o.shape_ && strides_ == o.strides_ && offset_ == o.offset_;
  }
  bool operator!=(const Layout& o) const { return !(*this == o); }

 private:
  Shape shape_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
};

}  // namespace vt
