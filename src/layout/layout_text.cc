// Printer and recursive-descent parser of the layout text form (docs/layout-text-format.md).
#include "vtensor/layout/layout_text.h"

#include "vtensor/layout/encoding.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace vt {

namespace {

constexpr std::string_view kPrefix = "vt.layout.v";

void AppendList(std::string& s, const std::vector<int64_t>& v) {
  s += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  s += ']';
}

class Parser {
 public:
  explicit Parser(std::string_view text) : t_(text) {}

  Expected<Layout> Parse();

 private:
  Status Error(std::string_view expected) const {
    std::string found = pos_ >= t_.size() ? "end of text" : std::string(t_.substr(pos_, 12));
    return InvalidArgument("layout text, column " + std::to_string(pos_ + 1) + ": expected " +
                           std::string(expected) + ", found '" + found + "'");
  }
  void SkipSpace() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t')) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Status Expect(char c) {
    if (Eat(c)) return Status::Ok();
    return Error(std::string("'") + c + "'");
  }
  Expected<int64_t> Int() {
    SkipSpace();
    const char* b = t_.data() + pos_;
    const char* e = t_.data() + t_.size();
    int64_t v = 0;
    // from_chars accepts a leading '-' but not '+', matching the grammar.
    auto r = std::from_chars(b, e, v);
    if (r.ec == std::errc::result_out_of_range) return Error("an integer within 64 bits");
    if (r.ec != std::errc() || r.ptr == b) return Error("an integer");
    pos_ += static_cast<size_t>(r.ptr - b);
    return v;
  }
  Expected<std::vector<int64_t>> IntList() {
    VT_RETURN_IF_ERROR(Expect('['));
    std::vector<int64_t> out;
    if (Eat(']')) return out;
    do {
      if (out.size() >= 1024) return Error("at most 1024 list elements");
      VT_ASSIGN_OR_RETURN(int64_t v, Int());
      out.push_back(v);
    } while (Eat(','));
    VT_RETURN_IF_ERROR(Expect(']'));
    return out;
  }
  Expected<std::vector<LayoutLevel>> Levels() {
    VT_RETURN_IF_ERROR(Expect('['));
    std::vector<LayoutLevel> out;
    if (Eat(']')) return out;
    do {
      if (out.size() >= 1024) return Error("at most 1024 levels");
      VT_RETURN_IF_ERROR(Expect('('));
      size_t at = pos_;
      VT_ASSIGN_OR_RETURN(int64_t dim, Int());
      if (dim < 0 || dim > 1 << 20) {
        pos_ = at;
        return Error("a dim index in [0, 2^20]");
      }
      VT_RETURN_IF_ERROR(Expect(','));
      VT_ASSIGN_OR_RETURN(int64_t tile, Int());
      VT_RETURN_IF_ERROR(Expect(','));
      VT_ASSIGN_OR_RETURN(int64_t stride, Int());
      VT_RETURN_IF_ERROR(Expect(')'));
      out.push_back({static_cast<int32_t>(dim), tile, stride});
    } while (Eat(','));
    VT_RETURN_IF_ERROR(Expect(']'));
    return out;
  }
  // An identifier: [a-z0-9_]+.
  std::string_view Word() {
    SkipSpace();
    size_t b = pos_;
    while (pos_ < t_.size() && ((t_[pos_] >= 'a' && t_[pos_] <= 'z') ||
                                (t_[pos_] >= '0' && t_[pos_] <= '9') || t_[pos_] == '_'))
      ++pos_;
    return t_.substr(b, pos_ - b);
  }

  std::string_view t_;
  size_t pos_ = 0;
};

Expected<Layout> Parser::Parse() {
  SkipSpace();
  if (t_.substr(pos_, kPrefix.size()) != kPrefix) return Error("'vt.layout.v'");
  pos_ += kPrefix.size();
  size_t at = pos_;
  if (pos_ >= t_.size() || t_[pos_] < '0' || t_[pos_] > '9') return Error("a version number");
  VT_ASSIGN_OR_RETURN(int64_t version, Int());
  if (version != kLayoutTextVersion) {
    pos_ = at;
    return Error("version " + std::to_string(kLayoutTextVersion));
  }
  VT_RETURN_IF_ERROR(Expect('<'));
  size_t shape_at = pos_;
  VT_ASSIGN_OR_RETURN(Shape shape, IntList());

  Encoding enc = Encoding::kUnspecified;
  std::optional<std::vector<int64_t>> strides, pad;
  std::optional<std::vector<LayoutLevel>> levels;
  std::optional<int64_t> offset;
  bool have_enc = false;
  size_t first_item = 0;
  while (Eat(',')) {
    SkipSpace();
    size_t item_at = pos_;
    if (!first_item) first_item = item_at;
    std::string_view w = Word();
    auto duplicate = [&](bool seen) -> Status {
      if (!seen) return Status::Ok();
      pos_ = item_at;
      return Error("each item at most once ('" + std::string(w) + "' repeats)");
    };
    if (w == "strides" || w == "levels" || w == "pad" || w == "offset") {
      VT_RETURN_IF_ERROR(Expect('='));
      if (w == "strides") {
        VT_RETURN_IF_ERROR(duplicate(strides.has_value()));
        VT_ASSIGN_OR_RETURN(strides, IntList());
      } else if (w == "levels") {
        VT_RETURN_IF_ERROR(duplicate(levels.has_value()));
        VT_ASSIGN_OR_RETURN(levels, Levels());
      } else if (w == "pad") {
        VT_RETURN_IF_ERROR(duplicate(pad.has_value()));
        VT_ASSIGN_OR_RETURN(pad, IntList());
      } else {
        VT_RETURN_IF_ERROR(duplicate(offset.has_value()));
        VT_ASSIGN_OR_RETURN(offset, Int());
      }
      continue;
    }
    auto e = EncodingFromName(w);
    if (w.empty() || !e) {
      pos_ = item_at;
      return Error("an encoding name (f32, f16, bf16, i8, u8, i4, u4, q8_0, q4_0, q4zp32, q4_k) "
                   "or one of strides=, levels=, pad=, offset=");
    }
    VT_RETURN_IF_ERROR(duplicate(have_enc));
    have_enc = true;
    enc = *e;
  }
  VT_RETURN_IF_ERROR(Expect('>'));
  SkipSpace();
  if (pos_ != t_.size()) return Error("end of text after '>'");

  auto at_item = [&](Status s) {
    return std::move(s).WithContext("layout text, column " +
                                    std::to_string((first_item ? first_item : shape_at) + 1));
  };
  if (strides && (levels || pad)) {
    return at_item(InvalidArgument("strides= cannot be combined with levels= or pad="));
  }
  if (!levels && pad) return at_item(InvalidArgument("pad= needs levels="));
  if (levels) {
    LayoutSpec spec{shape, enc, *levels, pad.value_or(Shape{}), offset.value_or(0)};
    auto l = Layout::Make(spec);
    if (!l.ok()) return at_item(l.status());
    return l;
  }
  for (int64_t d : shape)
    if (d < 0) {
      pos_ = shape_at;
      return Error("non-negative dims");
    }
  if (strides && strides->size() != shape.size())
    return at_item(InvalidArgument("strides= has " + std::to_string(strides->size()) +
                                   " entries for rank " + std::to_string(shape.size())));
  // The factory's bounds (element count, addresses) apply; the strides are kept literally, and
  // block encodings keep their flat meaning (blocks of the element index), as Strided() does.
  __int128 total = 1;
  for (int64_t d : shape) {
    total *= std::max<int64_t>(d, 1);
    if (total > (__int128{1} << 62)) return at_item(InvalidArgument("more than 2^62 elements"));
  }
  if (!strides) strides = RowMajorStrides(shape);
  LayoutSpec check{shape, Encoding::kUnspecified, {}, {}, offset.value_or(0)};
  for (size_t d = 0; d < shape.size(); ++d)
    check.levels.push_back({static_cast<int32_t>(d), 1, (*strides)[d]});
  if (auto c = Layout::Make(check); !c.ok()) return at_item(c.status());
  {
    // Byte addresses must fit too (Layout::Make's bound for packed forms).
    const auto& traits = GetEncodingTraits(enc);
    __int128 hi = offset.value_or(0);
    bool empty = false;
    for (size_t d = 0; d < shape.size(); ++d) {
      empty = empty || shape[d] == 0;
      if ((*strides)[d] > 0) hi += static_cast<__int128>(shape[d] - 1) * (*strides)[d];
    }
    if (!empty && traits.block_bytes > 0 &&
        (hi / traits.block_elems + 1) * static_cast<__int128>(traits.block_bytes) >
            (__int128{1} << 62))
      return at_item(InvalidArgument("byte addresses exceed 2^62 bytes"));
  }
  auto l = Layout::Strided(shape, *strides, offset.value_or(0), enc);
  if (!l.ok()) return at_item(l.status());
  return l;
}

}  // namespace

std::string LayoutToText(const Layout& layout) {
  std::string s(kPrefix);
  s += std::to_string(kLayoutTextVersion);
  s += '<';
  AppendList(s, layout.shape());
  if (layout.encoding() != Encoding::kUnspecified) {
    s += ',';
    s += GetEncodingTraits(layout.encoding()).name;
  }
  if (layout.is_strided()) {
    if (layout.strides() != RowMajorStrides(layout.shape())) {
      s += ",strides=";
      AppendList(s, layout.strides());
    }
  } else {
    auto levels = layout.levels();
    s += ",levels=[";
    for (size_t i = 0; i < levels.size(); ++i) {
      if (i) s += ',';
      s += '(' + std::to_string(levels[i].dim) + ',' + std::to_string(levels[i].tile) + ',' +
           std::to_string(levels[i].stride) + ')';
    }
    s += ']';
    // Padding is printed only when rebuilding without it would give a different layout.
    auto plain = Layout::Make({layout.shape(), layout.encoding(), levels, {}, layout.offset()});
    if (!plain.ok() || *plain != layout) {
      s += ",pad=";
      AppendList(s, layout.padded_shape());
    }
  }
  if (layout.offset() != 0) s += ",offset=" + std::to_string(layout.offset());
  s += '>';
  return s;
}

Expected<Layout> ParseLayout(std::string_view text) { return Parser(text).Parse(); }

}  // namespace vt
