#include "vtensor/export/layout_facts.h"

#include "vtensor/layout/layout_text.h"

namespace vt {

namespace {

const char* BlockOrderName(BlockOrder o) {
  return o == BlockOrder::kInputBlockMajor ? "input_block_major" : "row_major";
}

}  // namespace

LayoutFacts DescribeLayout(const Layout& layout) {
  LayoutFacts f;
  f.text = LayoutToText(layout);
  f.shape = layout.shape();
  const EncodingTraits& tr = GetEncodingTraits(layout.encoding());
  f.encoding = layout.encoding() == Encoding::kUnspecified ? "" : tr.name;
  f.block_elems = tr.block_elems;
  f.block_bytes = tr.block_bytes;
  // Where a block format keeps its scale: inside each block (layout/encoding.h block structs).
  f.scale_placement = tr.has_scale ? "in_block" : "none";
  f.scale_type = tr.has_scale ? GetEncodingTraits(tr.scale_encoding).name : "";
  f.zero_point = tr.has_scale && tr.zero_point;
  f.block_order = BlockOrderName(layout.block_order());
  f.form = layout.is_strided() ? "strided" : "packed";
  if (layout.is_strided()) f.strides = layout.strides();
  f.levels = layout.levels();
  f.padded = layout.padded_shape();
  f.offset = layout.offset();
  f.storage_bytes = layout.StorageBytes();
  return f;
}

Expected<Layout> LayoutFromFacts(const LayoutFacts& f) {
  if (f.version != kLayoutFactsVersion)
    return InvalidArgument("layout facts: version " + std::to_string(f.version) +
                           " is not supported (expected " + std::to_string(kLayoutFactsVersion) +
                           ")");
  Encoding enc = Encoding::kUnspecified;
  if (!f.encoding.empty()) {
    auto e = EncodingFromName(f.encoding);
    if (!e) return InvalidArgument("layout facts: encoding: unknown encoding '" + f.encoding + "'");
    enc = *e;
  }
  Layout l;
  if (f.form == "strided") {
    VT_ASSIGN_OR_RETURN(l, Layout::Strided(f.shape, f.strides, f.offset, enc));
  } else if (f.form == "packed") {
    LayoutSpec s;
    s.shape = f.shape;
    s.encoding = enc;
    s.levels = f.levels;
    s.padded = f.padded;
    s.offset = f.offset;
    VT_ASSIGN_OR_RETURN(l, Layout::Make(s));
  } else {
    return InvalidArgument("layout facts: form: expected \"strided\" or \"packed\", found \"" +
                           f.form + "\"");
  }
  // Derived fields must describe the same layout.
  const LayoutFacts d = DescribeLayout(l);
  if (d.block_elems != f.block_elems) return InvalidArgument("layout facts: block_elems disagrees with encoding");
  if (d.block_bytes != f.block_bytes) return InvalidArgument("layout facts: block_bytes disagrees with encoding");
  if (d.block_order != f.block_order) return InvalidArgument("layout facts: block_order disagrees with levels");
  if (!f.text.empty() && d.text != f.text)
    return InvalidArgument("layout facts: text '" + f.text + "' disagrees with the fields ('" +
                           d.text + "')");
  return l;
}

}  // namespace vt
