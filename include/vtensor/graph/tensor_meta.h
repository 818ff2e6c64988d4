// Typed accessors for the layout-related metadata of a TensorSpec (docs/design.md §3.1-3.2).
//
// Every value is stored in TensorSpec's metadata map under a documented key, as a stable
// string or integer, so any pass that copies a TensorSpec keeps it and any emitter that
// stringifies metadata loses nothing: a layout is stored as its canonical text
// (layout/layout_text.h), which round-trips exactly.
//
//   vt.identity           initializer name / canonical constant name (graph/type_info.h)
//   vt.encoding           stored encoding name ("f32", "i4", "q4_0", ...)
//   vt.layout             physical layout of the value (canonical `vt.layout.v1<...>` text)
//   vt.layout.origin      who decided vt.layout: "capture" (the file or the live tensor pinned
//                         it), or the name of the pass that set it ("transpose-elimination",
//                         "layout-assignment")
//   vt.alias_of           name of the value whose bytes this value views (no copy)
//   vt.compiled.<arch>    layout of a compiled entry found in the file for architecture <arch>
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/type_info.h"
#include "vtensor/layout/encoding.h"
#include "vtensor/layout/layout.h"

namespace vt {

inline constexpr char kMetaIdentity[] = "vt.identity";
inline constexpr char kMetaEncoding[] = "vt.encoding";
inline constexpr char kMetaLayout[] = "vt.layout";
inline constexpr char kMetaLayoutOrigin[] = "vt.layout.origin";
inline constexpr char kMetaAliasOf[] = "vt.alias_of";
inline constexpr char kMetaCompiledPrefix[] = "vt.compiled.";

// The origin recorded for layouts pinned at capture; a layout with this origin is never
// replaced by a pass.
inline constexpr char kLayoutOriginCapture[] = "capture";

// Stored encoding, or nullopt when unset or not a known encoding name.
std::optional<Encoding> TensorEncoding(const TensorSpec& spec);
void SetTensorEncoding(TensorSpec& spec, Encoding e);

// Physical layout: nullopt when unset. Errors: InvalidArgument "metadata vt.layout: <parse
// error>" when the stored text is not a valid layout (metadata written by hand or by a newer
// version).
Expected<std::optional<Layout>> TensorLayout(const TensorSpec& spec);
// Stores `layout` and its origin ("capture" or a pass name).
void SetTensorLayout(TensorSpec& spec, const Layout& layout, std::string_view origin);
// Origin of the stored layout ("" when none).
std::string TensorLayoutOrigin(const TensorSpec& spec);
// True when a layout is stored, whatever its origin.
bool HasTensorLayout(const TensorSpec& spec);

// Aliasing: the value whose storage this one views.
std::optional<std::string> TensorAliasOf(const TensorSpec& spec);
void SetTensorAliasOf(TensorSpec& spec, const std::string& name);

// Compiled entries recorded at capture, one per architecture ("x86_64-avx512", ...).
void SetCompiledLayout(TensorSpec& spec, std::string_view architecture, const Layout& layout);
// Errors: as TensorLayout.
Expected<std::optional<Layout>> CompiledLayout(const TensorSpec& spec,
                                               std::string_view architecture);
// Architectures with a recorded compiled entry, sorted.
std::vector<std::string> CompiledArchitectures(const TensorSpec& spec);

}  // namespace vt
