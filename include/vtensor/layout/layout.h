// Layout: where logical element (i0..in-1) of a tensor lives in its storage (docs/design.md §2).
//
// The logical shape is never reordered. Two physical forms share this one value type:
//
//  * Strided (the runtime's hot path): one stride per logical dim, in elements (0 for
//    broadcast, negative for reversed slices), plus an element offset. Built by Contiguous() /
//    Strided(); transpose, slice and broadcast are stride changes and never copy. Copying a
//    strided Layout copies two small vectors and nothing else.
//  * Packed (tiled / blocked / padded): an ordered list of physical levels (logical dim, tile,
//    stride), per-dim padded extents and an element encoding. Built only by Layout::Make, the
//    canonicalizing factory, and shared immutably between copies.
//
// Addressing, for both forms: every logical dim d is split over its levels in mixed radix. A
// level (d, tile T, stride S) contributes ((i_d / T) mod (T_parent / T)) * S, where T_parent
// is the next larger tile of dim d (no modulus for the largest). The element index is
// E = offset + sum of contributions; a strided layout is the case "one level of tile 1 per
// dim". The byte address of E under an encoding with B elements per block of N bytes is
// (E div B) * N, and the element sits at position (E mod B) inside that block (the nibble for
// i4/u4). Hence a block encoding's blocks follow the element order: a block-quantized weight in
// kernel-feed order is a level permutation, not a special case.
//
// The canonical text form `vt.layout.v1<...>` is in layout/layout_text.h; its grammar is in
// docs/layout-text-format.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/layout/encoding.h"

namespace vt {

using Shape = std::vector<int64_t>;

// Number of elements of `shape` (1 for rank 0). Callers validate dims are >= 0.
int64_t NumElements(const Shape& shape);
// Row-major (C order) strides in elements.
std::vector<int64_t> RowMajorStrides(const Shape& shape);
// "[1,3,224,224]"
std::string ShapeToString(const Shape& shape);

// One physical level: logical dim `dim` stepped in tiles of `tile` elements, `stride` elements
// apart (see the addressing rule above).
struct LayoutLevel {
  int32_t dim = 0;
  int64_t tile = 1;
  int64_t stride = 0;
  bool operator==(const LayoutLevel& o) const {
    return dim == o.dim && tile == o.tile && stride == o.stride;
  }
};

// Input of the canonicalizing factory. `padded` (empty: none) gives per-dim physical extents
// >= shape; the factory rounds each up to the dim's largest tile (and to the block size along
// the blocked dim of a block encoding).
struct LayoutSpec {
  Shape shape;
  Encoding encoding = Encoding::kUnspecified;
  std::vector<LayoutLevel> levels;
  Shape padded;
  int64_t offset = 0;
};

// Order of the blocks of a blocked dim relative to the other dims.
// kRowMajor: blocks are stored in the logical row-major order of the tensor (how ONNX and GGUF
// store weights). kInputBlockMajor: the blocked ("input", reduction) dim's outer blocks are the
// outermost physical level, so a kernel streaming one input block reads every output row's
// block contiguously (kernel-feed order).
enum class BlockOrder : uint8_t { kRowMajor, kInputBlockMajor };

// Where one element lives: the byte offset of its block (or of the element itself for
// one-element blocks), and its index inside the block (the nibble for i4/u4). For
// Encoding::kUnspecified the unit is one element: `byte` is the element index.
struct ByteAddress {
  int64_t byte = 0;
  int32_t elem = 0;
  bool operator==(const ByteAddress& o) const { return byte == o.byte && elem == o.elem; }
};

class Layout {
 public:
  Layout() = default;  // rank-0 contiguous

  // Row-major contiguous layout of `shape`, offset 0.
  static Layout Contiguous(Shape shape, Encoding encoding = Encoding::kUnspecified);
  // Arbitrary strided layout. Errors: InvalidArgument when ranks differ or a dim is negative.
  static Expected<Layout> Strided(Shape shape, std::vector<int64_t> strides, int64_t offset,
                                  Encoding encoding = Encoding::kUnspecified);
  // The canonicalizing factory: the only way to build a packed layout. Validates, drops levels
  // that contribute nothing, merges adjacent levels that describe one contiguous run, orders
  // levels outermost first (by |stride|, then dim, then tile) and returns a strided layout when
  // the result is one (one tile-1 level per dim, no padding). Specs that differ only by level
  // order, redundant levels or split contiguous runs therefore yield equal layouts.
  // Errors (InvalidArgument, naming the field): negative dim, level dim out of range, tile < 1,
  // tiles of one dim not dividing each other, a dim of extent > 1 without a tile-1 level,
  // padded < shape, a block encoding without a unit-stride level or whose blocks would straddle
  // that level, negative element indices, sizes over 2^62.
  static Expected<Layout> Make(const LayoutSpec& spec);

  const Shape& shape() const { return shape_; }
  // Strides in elements. Only meaningful when is_strided(); empty for packed layouts.
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t numel() const { return NumElements(shape_); }
  Encoding encoding() const { return encoding_; }

  // True for the one-stride-per-dim form (everything the runtime's kernels index directly).
  bool is_strided() const { return packed_ == nullptr; }
  // True when elements are dense row-major starting at offset() (never for packed layouts).
  bool is_contiguous() const;

  // Levels in canonical order, outermost first. A strided layout reports one (d, 1, stride)
  // level per dim of extent > 1.
  std::vector<LayoutLevel> levels() const;
  // Physical extent per dim (== shape() for strided layouts).
  Shape padded_shape() const;
  // kInputBlockMajor when the innermost (tile-1) level of another dim lies inside the
  // outermost level of the blocked dim (the dim of the unit-stride level; the last dim when
  // there is none), else kRowMajor.
  BlockOrder block_order() const;

  // Element index (relative to storage start) of the logical index `idx` (size rank()).
  int64_t ElementIndex(const int64_t* idx) const;
  // Byte address of logical index `idx` under encoding() (see ByteAddress).
  ByteAddress Locate(const int64_t* idx) const;
  // Bytes (elements for kUnspecified) the storage must hold: one past the largest byte any
  // element of the padded physical extent occupies, rounded to whole blocks. 0 when empty.
  int64_t StorageBytes() const;

  // perm[i] = input dim placed at output dim i. Errors: InvalidArgument for a bad permutation.
  Expected<Layout> Transpose(const std::vector<int64_t>& perm) const;
  // Keeps `count` elements of `axis` starting at `start` with `step` (step != 0). Packed
  // layouts: Unimplemented unless `axis` has a single level or (step 1 and start a multiple of
  // the dim's largest tile).
  Expected<Layout> Slice(int axis, int64_t start, int64_t step, int64_t count) const;
  // Numpy-style broadcast to `target` (rank >= rank()); broadcast dims get stride 0.
  Expected<Layout> BroadcastTo(const Shape& target) const;

  // Stable 64-bit hash: FNV-1a of the canonical text form (same value on every platform and
  // run; changes only with the text format version).
  uint64_t Hash() const;

  // Structural equality: shape, encoding, offset and either strides (strided form, compared
  // literally) or canonical levels and padding (packed form).
  bool operator==(const Layout& o) const {
    return shape_ == o.shape_ && strides_ == o.strides_ && offset_ == o.offset_ &&
           encoding_ == o.encoding_ && (packed_ == o.packed_ || PackedEqual(o));
  }
  bool operator!=(const Layout& o) const { return !(*this == o); }

 private:
  struct Packed;
  bool PackedEqual(const Layout& o) const;

  Shape shape_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
  Encoding encoding_ = Encoding::kUnspecified;
  std::shared_ptr<const Packed> packed_;  // null for strided layouts
};

}  // namespace vt
