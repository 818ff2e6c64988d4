#include "vtensor/layout/layout.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "vtensor/layout/layout_text.h"

namespace vt {

namespace {

constexpr int kMaxRank = 64;
constexpr int kMaxLevels = 256;
constexpr int64_t kMaxValue = int64_t{1} << 62;  // bound on extents, strides and addresses

int64_t RoundUp(int64_t x, int64_t m) { return m <= 1 ? x : (x + m - 1) / m * m; }

// Floor division for element indices that may be negative (reversed strided views).
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::string Field(const char* name, size_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

// Canonical level order: outermost (largest |stride|) first; ties by dim, then larger tile.
bool LevelBefore(const LayoutLevel& a, const LayoutLevel& b) {
  int64_t sa = std::llabs(a.stride), sb = std::llabs(b.stride);
  if (sa != sb) return sa > sb;
  if (a.dim != b.dim) return a.dim < b.dim;
  if (a.tile != b.tile) return a.tile > b.tile;
  return a.stride > b.stride;
}

// Digit count of each level: T_parent / T, or padded / T for the largest tile of its dim.
std::vector<int64_t> LevelCounts(const std::vector<LayoutLevel>& levels, const Shape& padded) {
  std::vector<int64_t> counts(levels.size());
  for (size_t i = 0; i < levels.size(); ++i) {
    int64_t parent = 0;
    for (const auto& o : levels)
      if (o.dim == levels[i].dim && o.tile > levels[i].tile && (parent == 0 || o.tile < parent))
        parent = o.tile;
    counts[i] = parent ? parent / levels[i].tile
                       : (padded[static_cast<size_t>(levels[i].dim)] + levels[i].tile - 1) /
                             levels[i].tile;
  }
  return counts;
}

}  // namespace

struct Layout::Packed {
  std::vector<LayoutLevel> levels;  // canonical order
  std::vector<int64_t> modulus;     // per level: T_parent / T, 0 for the largest tile of a dim
  Shape padded;
};

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

Layout Layout::Contiguous(Shape shape, Encoding encoding) {
  Layout l;
  l.strides_ = RowMajorStrides(shape);
  l.shape_ = std::move(shape);
  l.encoding_ = encoding;
  return l;
}

Expected<Layout> Layout::Strided(Shape shape, std::vector<int64_t> strides, int64_t offset,
                                 Encoding encoding) {
  if (shape.size() != strides.size())
    return InvalidArgument("layout: rank of shape " + ShapeToString(shape) +
                           " differs from number of strides " + std::to_string(strides.size()));
  for (int64_t d : shape)
    if (d < 0) return InvalidArgument("layout: negative dim in " + ShapeToString(shape));
  if (encoding >= Encoding::kCount)
    return InvalidArgument("layout: unknown encoding");
  Layout l;
  l.shape_ = std::move(shape);
  l.strides_ = std::move(strides);
  l.offset_ = offset;
  l.encoding_ = encoding;
  return l;
}

namespace {

// The factory's steps, in order. `where` prefixes every error ("layout [2,3]: ").

// Rank, encoding, level count, offset and every dim within bounds; `padded` = the spec's
// padded extent (the shape when none is given).
Status CheckSpecBounds(const LayoutSpec& spec, const std::string& where, Shape* padded) {
  const size_t rank = spec.shape.size();
  if (rank > kMaxRank) return InvalidArgument(where + "rank over " + std::to_string(kMaxRank));
  if (spec.encoding >= Encoding::kCount) return InvalidArgument(where + "unknown encoding");
  if (spec.levels.size() > kMaxLevels)
    return InvalidArgument(where + "more than " + std::to_string(kMaxLevels) + " levels");
  if (!spec.padded.empty() && spec.padded.size() != rank)
    return InvalidArgument(where + "padded has " + std::to_string(spec.padded.size()) +
                           " dims, expected " + std::to_string(rank));
  if (spec.offset < 0 || spec.offset > kMaxValue)
    return InvalidArgument(where + "offset " + std::to_string(spec.offset) + " out of range");
  padded->assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    if (spec.shape[d] < 0 || spec.shape[d] > kMaxValue)
      return InvalidArgument(where + Field("shape", d) + ": dim " + std::to_string(spec.shape[d]) +
                             " out of range");
    (*padded)[d] = spec.padded.empty() ? spec.shape[d] : spec.padded[d];
    if ((*padded)[d] < spec.shape[d] || (*padded)[d] > kMaxValue)
      return InvalidArgument(where + Field("padded", d) + ": " + std::to_string((*padded)[d]) +
                             " is smaller than the dim or out of range");
  }
  return Status::Ok();
}

// At most 2^62 elements in `padded` (`what` prefixes "more than 2^62 elements").
Status CheckElementCount(const Shape& padded, const std::string& where, const char* what) {
  __int128 total = 1;
  for (int64_t d : padded) {
    total *= std::max<int64_t>(d, 1);
    if (total > kMaxValue) return InvalidArgument(where + what + "more than 2^62 elements");
  }
  return Status::Ok();
}

// Every level names a dim of the shape, a tile in [1, 2^62] and a stride within +-2^62.
Status CheckLevels(const std::vector<LayoutLevel>& levels, size_t rank, const std::string& where) {
  for (size_t i = 0; i < levels.size(); ++i) {
    const auto& l = levels[i];
    if (l.dim < 0 || static_cast<size_t>(l.dim) >= rank)
      return InvalidArgument(where + Field("levels", i) + ": dim " + std::to_string(l.dim) +
                             " outside rank " + std::to_string(rank));
    if (l.tile < 1 || l.tile > kMaxValue)
      return InvalidArgument(where + Field("levels", i) + ": tile " + std::to_string(l.tile) +
                             " must be in [1, 2^62]");
    if (l.stride < -kMaxValue || l.stride > kMaxValue)
      return InvalidArgument(where + Field("levels", i) + ": stride out of range");
  }
  return Status::Ok();
}

// Per dim: distinct tiles forming a divisibility chain that ends at 1; padding rounded up to
// the largest tile.
Status CheckTileChains(const std::vector<LayoutLevel>& levels, const std::string& where,
                       Shape* padded) {
  for (size_t d = 0; d < padded->size(); ++d) {
    std::vector<int64_t> tiles;
    for (const auto& l : levels)
      if (static_cast<size_t>(l.dim) == d) tiles.push_back(l.tile);
    std::sort(tiles.rbegin(), tiles.rend());
    for (size_t k = 0; k + 1 < tiles.size(); ++k) {
      if (tiles[k] == tiles[k + 1])
        return InvalidArgument(where + "levels: dim " + std::to_string(d) +
                               " has two levels with tile " + std::to_string(tiles[k]));
      if (tiles[k] % tiles[k + 1] != 0)
        return InvalidArgument(where + "levels: dim " + std::to_string(d) + " tile " +
                               std::to_string(tiles[k + 1]) + " does not divide tile " +
                               std::to_string(tiles[k]));
    }
    int64_t& p = (*padded)[d];
    if (!tiles.empty()) p = RoundUp(p, tiles.front());
    if (p > kMaxValue) return InvalidArgument(where + Field("padded", d) + " overflows");
    if (p > 1 && (tiles.empty() || tiles.back() != 1))
      return InvalidArgument(where + "levels: dim " + std::to_string(d) + " of extent " +
                             std::to_string(p) + " has no level with tile 1");
  }
  return Status::Ok();
}

// Block encodings: blocks are runs of block_elems consecutive element indices along the
// unit-stride level, which must therefore hold whole blocks; every other step (and the
// offset) moves by whole blocks. The blocked dim's padding is rounded up to whole blocks.
Status CheckBlocks(const LayoutSpec& spec, const std::vector<LayoutLevel>& levels,
                   const std::string& where, Shape* padded) {
  const auto& traits = GetEncodingTraits(spec.encoding);
  if (!traits.has_scale) return Status::Ok();
  const int64_t be = traits.block_elems;
  int unit = -1;
  for (size_t i = 0; i < levels.size(); ++i)
    if (levels[i].tile == 1 && levels[i].stride == 1) unit = static_cast<int>(i);
  if (unit < 0)
    return InvalidArgument(where + "levels: encoding " + traits.name +
                           " needs a level with tile 1 and stride 1 (the blocked dim)");
  const auto b = static_cast<size_t>(levels[static_cast<size_t>(unit)].dim);
  int64_t parent = 0;
  for (const auto& l : levels)
    if (static_cast<size_t>(l.dim) == b && l.tile > 1 && (parent == 0 || l.tile < parent))
      parent = l.tile;
  if (parent == 0) {
    (*padded)[b] = RoundUp((*padded)[b], be);
  } else if (parent % be != 0) {
    return InvalidArgument(where + "levels: tile " + std::to_string(parent) + " of dim " +
                           std::to_string(b) + " splits " + traits.name + " blocks of " +
                           std::to_string(be) + " elements");
  }
  for (size_t i = 0; i < levels.size(); ++i)
    if (static_cast<int>(i) != unit && levels[i].stride % be != 0)
      return InvalidArgument(where + Field("levels", i) + ": stride " +
                             std::to_string(levels[i].stride) + " is not a whole number of " +
                             traits.name + " blocks (" + std::to_string(be) + " elements)");
  if (spec.offset % be != 0)
    return InvalidArgument(where + "offset " + std::to_string(spec.offset) +
                           " is not a whole number of " + traits.name + " blocks");
  return Status::Ok();
}

// Drops levels whose digit is always 0, orders them canonically and merges contiguous runs.
// Levels of an empty dim (count 0) stay: they still say where elements would go (and which
// dim is blocked), and dropping them would make the canonical form fail validation.
std::vector<LayoutLevel> CanonicalLevels(const std::vector<LayoutLevel>& in, const Shape& padded) {
  std::vector<LayoutLevel> levels;
  const auto counts = LevelCounts(in, padded);
  for (size_t i = 0; i < in.size(); ++i)
    if (counts[i] != 1) levels.push_back(in[i]);
  std::sort(levels.begin(), levels.end(), LevelBefore);
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i + 1 < levels.size() && !merged; ++i) {
      const LayoutLevel a = levels[i], b = levels[i + 1];
      if (a.dim != b.dim || a.tile <= b.tile) continue;
      bool immediate = true;
      for (const auto& o : levels)
        if (o.dim == a.dim && o.tile > b.tile && o.tile < a.tile) immediate = false;
      const __int128 want = static_cast<__int128>(b.stride) * (a.tile / b.tile);
      if (!immediate || want != a.stride) continue;
      levels[i] = {a.dim, b.tile, b.stride};
      levels.erase(levels.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      std::sort(levels.begin(), levels.end(), LevelBefore);
      merged = true;
    }
  }
  return levels;
}

// Element addresses over the padded extent are non-negative and below 2^62, and so are the
// byte addresses (ByteAddress, StorageBytes: element addresses times the encoding's bytes per
// element).
Status CheckAddressRange(const std::vector<LayoutLevel>& levels,
                         const std::vector<int64_t>& counts, int64_t offset, Encoding encoding,
                         const std::string& where) {
  __int128 lo = offset, hi = offset;
  for (size_t i = 0; i < levels.size(); ++i) {
    if (counts[i] == 0) continue;  // empty tensor: that level addresses nothing
    const __int128 span = static_cast<__int128>(counts[i] - 1) * levels[i].stride;
    (span < 0 ? lo : hi) += span;
  }
  if (lo < 0)
    return InvalidArgument(where + "levels: negative strides reach before the storage start");
  if (hi > kMaxValue) return InvalidArgument(where + "levels: addresses exceed 2^62 elements");
  const auto& traits = GetEncodingTraits(encoding);
  if (traits.block_bytes > 0 &&
      (hi / traits.block_elems + 1) * static_cast<__int128>(traits.block_bytes) > kMaxValue)
    return InvalidArgument(where + "levels: byte addresses exceed 2^62 bytes");
  return Status::Ok();
}

// One level of tile 1 per dim and no padding: the layout is plain strides.
bool IsPlainStrided(const std::vector<LayoutLevel>& levels, const Shape& padded,
                    const Shape& shape) {
  if (padded != shape) return false;
  std::vector<int> per_dim(shape.size(), 0);
  for (const auto& l : levels)
    if (l.tile != 1 || ++per_dim[static_cast<size_t>(l.dim)] > 1) return false;
  return true;
}

}  // namespace

Expected<Layout> Layout::Make(const LayoutSpec& spec) {
  const std::string where = "layout " + ShapeToString(spec.shape) + ": ";
  Shape padded;
  VT_RETURN_IF_ERROR(CheckSpecBounds(spec, where, &padded));
  VT_RETURN_IF_ERROR(CheckElementCount(padded, where, ""));
  VT_RETURN_IF_ERROR(CheckLevels(spec.levels, spec.shape.size(), where));
  VT_RETURN_IF_ERROR(CheckTileChains(spec.levels, where, &padded));
  VT_RETURN_IF_ERROR(CheckBlocks(spec, spec.levels, where, &padded));
  // The padded extent (after rounding up to tiles and blocks) is what the canonical form
  // prints, so it must pass the same bound as a spec that states it directly.
  VT_RETURN_IF_ERROR(CheckElementCount(padded, where, "padded extent has "));
  std::vector<LayoutLevel> levels = CanonicalLevels(spec.levels, padded);
  const std::vector<int64_t> counts = LevelCounts(levels, padded);
  VT_RETURN_IF_ERROR(CheckAddressRange(levels, counts, spec.offset, spec.encoding, where));

  Layout out;
  out.shape_ = spec.shape;
  out.offset_ = spec.offset;
  out.encoding_ = spec.encoding;
  if (IsPlainStrided(levels, padded, spec.shape)) {
    out.strides_ = RowMajorStrides(spec.shape);
    for (const auto& l : levels) out.strides_[static_cast<size_t>(l.dim)] = l.stride;
    return out;
  }
  auto p = std::make_shared<Packed>();
  p->modulus.resize(levels.size());
  for (size_t i = 0; i < levels.size(); ++i) {
    bool largest = true;
    for (const auto& o : levels)
      if (o.dim == levels[i].dim && o.tile > levels[i].tile) largest = false;
    p->modulus[i] = largest ? 0 : counts[i];
  }
  p->levels = std::move(levels);
  p->padded = std::move(padded);
  out.packed_ = std::move(p);
  return out;
}

bool Layout::is_contiguous() const {
  if (packed_) return false;
  int64_t acc = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;
    if (shape_[i] == 0) return true;
    if (strides_[i] != acc) return false;
    acc *= shape_[i];
  }
  return true;
}

std::vector<LayoutLevel> Layout::levels() const {
  if (packed_) return packed_->levels;
  std::vector<LayoutLevel> out;
  for (size_t d = 0; d < shape_.size(); ++d)
    if (shape_[d] > 1) out.push_back({static_cast<int32_t>(d), 1, strides_[d]});
  std::sort(out.begin(), out.end(), LevelBefore);
  return out;
}

Shape Layout::padded_shape() const { return packed_ ? packed_->padded : shape_; }

BlockOrder Layout::block_order() const {
  auto ls = levels();
  if (ls.empty()) return BlockOrder::kRowMajor;
  int blocked = rank() - 1;
  for (const auto& l : ls)
    if (l.tile == 1 && l.stride == 1) blocked = l.dim;
  // Input-block-major when some other dim's innermost (tile-1) level lies inside the blocked
  // dim's outermost level: consecutive rows' blocks of one input block are adjacent.
  size_t outer = ls.size();
  for (size_t i = 0; i < ls.size() && outer == ls.size(); ++i)
    if (ls[i].dim == blocked) outer = i;
  for (size_t i = outer + 1; i < ls.size(); ++i)
    if (ls[i].dim != blocked && ls[i].tile == 1) return BlockOrder::kInputBlockMajor;
  return BlockOrder::kRowMajor;
}

int64_t Layout::ElementIndex(const int64_t* idx) const {
  int64_t e = offset_;
  if (!packed_) {
    for (size_t i = 0; i < shape_.size(); ++i) e += idx[i] * strides_[i];
    return e;
  }
  const auto& ls = packed_->levels;
  for (size_t i = 0; i < ls.size(); ++i) {
    int64_t q = idx[ls[i].dim] / ls[i].tile;
    if (packed_->modulus[i]) q %= packed_->modulus[i];
    e += q * ls[i].stride;
  }
  return e;
}

ByteAddress Layout::Locate(const int64_t* idx) const {
  const int64_t e = ElementIndex(idx);
  const auto& t = GetEncodingTraits(encoding_);
  if (t.block_bytes == 0) return {e, 0};
  const int64_t block = FloorDiv(e, t.block_elems);
  return {block * t.block_bytes, static_cast<int32_t>(e - block * t.block_elems)};
}

int64_t Layout::StorageBytes() const {
  for (int64_t d : shape_)
    if (d == 0) return 0;
  // 128-bit so that arbitrary strided layouts cannot overflow; saturates at INT64_MAX.
  __int128 hi = offset_;
  if (!packed_) {
    for (size_t d = 0; d < shape_.size(); ++d)
      if (strides_[d] > 0) hi += static_cast<__int128>(shape_[d] - 1) * strides_[d];
  } else {
    auto counts = LevelCounts(packed_->levels, packed_->padded);
    for (size_t i = 0; i < counts.size(); ++i)
      if (packed_->levels[i].stride > 0)
        hi += static_cast<__int128>(counts[i] - 1) * packed_->levels[i].stride;
  }
  const auto& t = GetEncodingTraits(encoding_);
  __int128 bytes = t.block_bytes == 0 ? hi + 1
                                      : (hi + t.block_elems) / t.block_elems * t.block_bytes;
  const __int128 kMax = std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(bytes > kMax ? kMax : bytes < 0 ? 0 : bytes);
}

Expected<Layout> Layout::Transpose(const std::vector<int64_t>& perm) const {
  if (perm.size() != shape_.size())
    return InvalidArgument("transpose: perm size " + std::to_string(perm.size()) +
                           " != rank " + std::to_string(shape_.size()));
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank() || seen[static_cast<size_t>(p)])
      return InvalidArgument("transpose: invalid permutation");
    seen[static_cast<size_t>(p)] = true;
  }
  if (!packed_) {
    Layout l;
    l.offset_ = offset_;
    l.encoding_ = encoding_;
    for (int64_t p : perm) {
      l.shape_.push_back(shape_[static_cast<size_t>(p)]);
      l.strides_.push_back(strides_[static_cast<size_t>(p)]);
    }
    return l;
  }
  std::vector<int32_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int32_t>(i);
  LayoutSpec s;
  s.encoding = encoding_;
  s.offset = offset_;
  for (int64_t p : perm) {
    s.shape.push_back(shape_[static_cast<size_t>(p)]);
    s.padded.push_back(packed_->padded[static_cast<size_t>(p)]);
  }
  for (auto l : packed_->levels) {
    l.dim = inv[static_cast<size_t>(l.dim)];
    s.levels.push_back(l);
  }
  return Make(s);
}

Expected<Layout> Layout::Slice(int axis, int64_t start, int64_t step, int64_t count) const {
  if (axis < 0 || axis >= rank()) return InvalidArgument("slice: axis out of range");
  if (step == 0) return InvalidArgument("slice: step 0");
  if (count < 0) return InvalidArgument("slice: negative count");
  const size_t a = static_cast<size_t>(axis);
  if (count > 0) {
    int64_t last = start + (count - 1) * step;
    if (start < 0 || start >= shape_[a] || last < 0 || last >= shape_[a])
      return OutOfRange("slice: range outside dim");
  }
  if (!packed_) {
    Layout l = *this;
    if (count > 0) l.offset_ += start * strides_[a];
    l.shape_[a] = count;
    l.strides_[a] = strides_[a] * step;
    return l;
  }
  LayoutSpec s{shape_, encoding_, packed_->levels, packed_->padded, offset_};
  std::vector<size_t> mine;
  for (size_t i = 0; i < s.levels.size(); ++i)
    if (static_cast<size_t>(s.levels[i].dim) == a) mine.push_back(i);
  if (count > 0 && mine.size() == 1 && s.levels[mine[0]].tile == 1) {
    s.offset += start * s.levels[mine[0]].stride;
    s.levels[mine[0]].stride *= step;
  } else if (count > 0 && !mine.empty()) {
    size_t top = mine[0];
    for (size_t i : mine)
      if (s.levels[i].tile > s.levels[top].tile) top = i;
    if (step != 1 || start % s.levels[top].tile != 0)
      return Unimplemented("slice: dim " + std::to_string(axis) + " of a packed layout is tiled by " +
                           std::to_string(s.levels[top].tile) +
                           "; only step-1 slices starting at a tile boundary are views");
    s.offset += start / s.levels[top].tile * s.levels[top].stride;
  }
  s.shape[a] = count;
  s.padded[a] = count;
  return Make(s);
}

Expected<Layout> Layout::BroadcastTo(const Shape& target) const {
  if (target.size() < shape_.size())
    return InvalidArgument("broadcast: target rank smaller than source");
  const size_t lead = target.size() - shape_.size();
  for (size_t i = 0; i < shape_.size(); ++i) {
    int64_t s = shape_[i], t = target[lead + i];
    if (s != t && s != 1)
      return InvalidArgument("broadcast: cannot broadcast " + ShapeToString(shape_) + " to " +
                             ShapeToString(target));
  }
  if (!packed_) {
    Layout l;
    l.offset_ = offset_;
    l.encoding_ = encoding_;
    l.shape_ = target;
    l.strides_.assign(target.size(), 0);
    for (size_t i = 0; i < shape_.size(); ++i)
      if (shape_[i] == target[lead + i]) l.strides_[lead + i] = strides_[i];
    return l;
  }
  LayoutSpec s;
  s.shape = target;
  s.encoding = encoding_;
  s.offset = offset_;
  s.padded = target;
  for (size_t i = 0; i < shape_.size(); ++i)
    if (shape_[i] == target[lead + i]) s.padded[lead + i] = packed_->padded[i];
  for (auto l : packed_->levels) {
    l.dim += static_cast<int32_t>(lead);
    s.levels.push_back(l);
  }
  for (size_t d = 0; d < target.size(); ++d) {
    bool broadcast = d < lead || shape_[d - lead] != target[d];
    if (broadcast && target[d] > 1) s.levels.push_back({static_cast<int32_t>(d), 1, 0});
  }
  return Make(s);
}

uint64_t Layout::Hash() const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a 64 offset basis
  for (unsigned char c : LayoutToText(*this)) {
    h ^= c;
    h *= 1099511628211ull;  // FNV prime
  }
  return h;
}

bool Layout::PackedEqual(const Layout& o) const {
  if (!packed_ || !o.packed_) return false;
  return packed_->levels == o.packed_->levels && packed_->padded == o.packed_->padded;
}

}  // namespace vt
