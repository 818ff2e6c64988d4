// The typed facts every emitter writes for one layout (layouts as typed
// values (logical shape, physical levels with tile sizes and strides, encoding, block
// elements, block bytes, scale placement, block order) — never a name string alone).
//
// JSON (export/json_export.h), the StableHLO module attribute `vt.tensor_layouts` and the
// `#vt.layout<...>` type encoding (export/stablehlo_export.h) all serialize exactly these
// fields, and LayoutFromFacts rebuilds the Layout from them alone (the text form is carried
// too, as a convenience, and must agree).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/layout/layout.h"

namespace vt {

// Schema version of the facts (bump when a field changes meaning).
constexpr int64_t kLayoutFactsVersion = 1;

struct LayoutFacts {
  int64_t version = kLayoutFactsVersion;
  std::string text;                 // canonical vt.layout.v1<...> text
  Shape shape;                      // logical shape
  std::string encoding;             // encoding name ("" = unspecified)
  int64_t block_elems = 1;          // logical elements per block
  int64_t block_bytes = 0;          // bytes per block (0 for unspecified)
  std::string scale_placement;      // "none" | "in_block" (scale stored inside each block)
  std::string scale_type;           // "" | "f16" | "f32"
  bool zero_point = false;          // blocks carry a zero point / min
  std::string block_order;          // "row_major" | "input_block_major"
  std::string form;                 // "strided" | "packed"
  std::vector<int64_t> strides;     // strided form: elements per logical dim
  std::vector<LayoutLevel> levels;  // canonical levels, outermost first (both forms)
  Shape padded;                     // physical extent per dim
  int64_t offset = 0;               // elements
  int64_t storage_bytes = 0;        // Layout::StorageBytes()
};

LayoutFacts DescribeLayout(const Layout& layout);

// Rebuilds the layout from the structural fields only (shape, encoding, form, strides or
// levels + padded, offset), and checks the derived fields (block sizes, block order, text)
// agree with it. Errors: InvalidArgument naming the first field that is malformed or
// inconsistent, or Layout::Make's error.
Expected<Layout> LayoutFromFacts(const LayoutFacts& facts);

}  // namespace vt
