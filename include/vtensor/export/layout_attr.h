// Layouts in MLIR attribute syntax: the writer used by the StableHLO
// emitter and the reader that rebuilds Layout values from an exported module.
//
// One layout is a dictionary of typed values (export/layout_facts.h):
//   {version = 1 : i64, text = "vt.layout.v1<...>", shape = array<i64: 64, 40>,
//    encoding = "f32", block_elems = 1 : i64, block_bytes = 4 : i64, scale_placement = "none",
//    scale_type = "", zero_point = false, block_order = "row_major", form = "packed",
//    [strides = array<i64: ...>,] levels = [array<i64: DIM, TILE, STRIDE>, ...],
//    padded = array<i64: ...>, offset = 0 : i64, storage_bytes = 12288 : i64}
// It appears as the value of each entry of the module attribute
//   vt.tensor_layouts = {"VALUE NAME" = {...}, ...}
// and, with --per-type-layouts, as the tensor type encoding #vt.layout<{...}>.
// Readers accept the keys in any order (mlir-opt re-prints dictionaries sorted).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/export/layout_facts.h"

namespace vt {

std::string LayoutFactsToMlir(const LayoutFacts& facts);

// Parses one dictionary. Errors: InvalidArgument "layout attribute, offset N: ..." for
// syntax errors, or naming a missing / mistyped key.
Expected<LayoutFacts> LayoutFactsFromMlir(std::string_view dict);

// Every entry of `vt.tensor_layouts` in a module's text, rebuilt as Layouts (LayoutFromFacts).
// An empty map when the module has no such attribute. Errors: as above, prefixed with the
// entry's name.
Expected<std::map<std::string, Layout>> ReadTensorLayouts(std::string_view mlir);

// Every `#vt.layout<{...}>` type encoding in a module's text, in order of appearance.
Expected<std::vector<Layout>> ReadTypeLayouts(std::string_view mlir);

}  // namespace vt
