// Plugins: shared libraries of vtensor's own build that hold code only some models or commands
// need, loaded the first time it is needed instead of by every process at start (their
// libraries' mapping, relocation and static initialisation cost milliseconds of each start;
// docs/install.md lists them). A plugin exports one C function,
//   extern "C" const void* ENTRY(int abi, size_t table_bytes)
// returning its table of function pointers, or null unless `abi` and `table_bytes` are those of
// the build that loads it: a plugin from another build is refused, never called. A plugin is
// built from the same sources with the same compiler as its loader, so a table may hand over C++
// types (std::string, Expected, protobuf messages of the shared libprotobuf).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vtensor/base/status.h"

namespace vt {

struct PluginSpec {
  const char* file;         // file name, e.g. "libvtensor-oplibs.so"
  const char* entry;        // the exported function's name
  const char* env;          // environment variable naming the plugin's path, replacing the search
  const char* install_dir;  // the installed library directory, tried last
  const char* description;  // what it is, for errors: "vtensor's operator libraries plugin"
  int abi;                  // the table's version in this build
  size_t table_bytes;       // sizeof the table in this build
};

// The paths tried, in order: $env alone when set and not empty; else beside the program or
// shared library holding vtensor's code (its directory, then lib/ and ../lib/ under it), then
// spec.install_dir. Read now, from the environment and the loaded files.
std::vector<std::string> PluginCandidates(const PluginSpec& spec);

// The table of the first of `paths` that loads and accepts this build's abi and table size,
// uncached. The library stays loaded until exit. `what` names who needs it, for the error.
// Error: FailedPrecondition "WHAT needs DESCRIPTION (FILE), which could not be loaded:" then one
// line per path with the loader's reason ("has no ENTRY", "built for another vtensor ...").
Expected<const void*> LoadPluginFrom(const PluginSpec& spec, const std::vector<std::string>& paths,
                                     const std::string& what);

// LoadPluginFrom's table as the plugin's table type.
template <typename Table>
Expected<const Table*> LoadPluginTableFrom(const PluginSpec& spec,
                                           const std::vector<std::string>& paths,
                                           const std::string& what) {
  VT_ASSIGN_OR_RETURN(const void* table, LoadPluginFrom(spec, paths, what));
  return static_cast<const Table*>(table);
}

// The table of `spec`'s plugin from PluginCandidates(spec), searched for by the first call
// (thread-safe) and kept, a failure included: later calls never search again. The error names
// each call's own `what` (the failure is kept as LoadPluginFrom words it for an empty `what`,
// " needs ..."). One plugin per table type.
template <typename Table>
Expected<const Table*> LoadPluginOnce(const PluginSpec& spec, const std::string& what) {
  static const Expected<const void*> loaded = LoadPluginFrom(spec, PluginCandidates(spec), "");
  if (!loaded.ok()) return FailedPrecondition(what + loaded.status().message());
  return static_cast<const Table*>(*loaded);
}

}  // namespace vt
