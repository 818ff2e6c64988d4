// The libraries only some operators use — ImageDecoder's format libraries (libjpeg, libpng,
// libtiff, libwebp, OpenJPEG, stb_image, netpbm) and RegexFullMatch's RE2 — live in a plugin,
// libvtensor-oplibs.so, loaded when the first node that needs it is prepared instead of by
// every process at start: mapping and relocating them cost about 10 ms and 140 page faults of
// every start of every program (docs/benchmarks.md, "Process start").
//
// The plugin is built from src/ops/oplibs/ with the same compiler and sources as the library
// that loads it, so its table hands over C++ types (Expected, std::string); the entry checks
// kOpLibsAbi and the table's size, so a plugin from another build is refused, not called.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ops/image/decoded_image.h"
#include "vtensor/base/status.h"

namespace vt::ops {

struct OpLibs {
  // ImageDecoder's decoders, one per format (ops/image/decoded_image.h).
  Expected<image::DecodedImage> (*decode_png)(std::span<const uint8_t>);
  Expected<image::DecodedImage> (*decode_jpeg)(std::span<const uint8_t>);
  Expected<image::DecodedImage> (*decode_tiff)(std::span<const uint8_t>);
  Expected<image::DecodedImage> (*decode_webp)(std::span<const uint8_t>);
  Expected<image::DecodedImage> (*decode_jpeg2000)(std::span<const uint8_t>);
  Expected<image::DecodedImage> (*decode_bmp)(std::span<const uint8_t>);
  Expected<image::DecodedImage> (*decode_pnm)(std::span<const uint8_t>);
  // RegexFullMatch: `pattern` compiled as RE2 syntax (UTF-8), or null with RE2's description
  // of the error in *error. Free with regex_free.
  void* (*regex_compile)(const std::string& pattern, std::string* error);
  // Whether the whole of `s` matches the compiled pattern `re`. Thread-safe.
  bool (*regex_full_match)(const void* re, const std::string& s);
  void (*regex_free)(void* re);
};

// Raised whenever OpLibs or a type it hands over changes.
inline constexpr int kOpLibsAbi = 1;
// The plugin's file name, and its one exported function:
//   extern "C" const void* vt_oplibs_table(int abi, size_t table_bytes)
// which returns its OpLibs, or null unless abi == kOpLibsAbi and table_bytes == sizeof(OpLibs)
// (base/plugin.h).
inline constexpr char kOpLibsFile[] = "libvtensor-oplibs.so";
inline constexpr char kOpLibsEntry[] = "vt_oplibs_table";

// The plugin's table, loaded by the first call (thread-safe; later calls return the same
// answer). Looked for at $VTENSOR_OPLIBS (a file path) when set, else beside the program or
// shared library holding vtensor's code (its directory, then lib/ and ../lib/ under it), then
// in the installed library directory. `what` names the operator for the error.
// Error: FailedPrecondition naming `what`, every path tried and the loader's reason.
Expected<const OpLibs*> LoadOpLibs(const std::string& what);

// The paths LoadOpLibs tries, in order (read now, from the environment and the loaded files).
std::vector<std::string> OpLibsCandidates();
// The first of `paths` that loads as the plugin, uncached. Error: as LoadOpLibs.
Expected<const OpLibs*> LoadOpLibsFrom(const std::vector<std::string>& paths,
                                       const std::string& what);

}  // namespace vt::ops
