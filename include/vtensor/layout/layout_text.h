// The versioned text form of a Layout, `vt.layout.v1<...>` (docs/design.md §2).
// Grammar and examples: docs/layout-text-format.md.
//
// Canonical text omits every default (contiguous strides, zero offset, unspecified encoding,
// default padding) and has no spaces, so for every layout x: ParseLayout(LayoutToText(x)) == x,
// and for every canonical string s: LayoutToText(ParseLayout(s)) == s.
#pragma once

#include <string>
#include <string_view>

#include "vtensor/base/status.h"
#include "vtensor/layout/layout.h"

namespace vt {

// Text format version written by LayoutToText and the only one ParseLayout accepts.
constexpr int kLayoutTextVersion = 1;

// Canonical text of `layout`, e.g. "vt.layout.v1<[64,256],q4_0,levels=[(1,32,2048),(0,1,32),
// (1,1,1)]>" (one line, no spaces).
std::string LayoutToText(const Layout& layout);

// Parses a layout; spaces and tabs between tokens are accepted, items after the shape in any
// order, each at most once. Packed layouts go through Layout::Make, so the result is
// canonical. Errors: InvalidArgument "layout text, column C: expected <what>, found '<text>'"
// (C is 1-based), or the Layout::Make / Layout::Strided error for a well-formed but invalid
// layout, prefixed with the column of the item it comes from.
Expected<Layout> ParseLayout(std::string_view text);

}  // namespace vt
