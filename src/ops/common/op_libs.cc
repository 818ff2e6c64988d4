#include "ops/common/op_libs.h"

#include "vtensor/base/plugin.h"

namespace vt::ops {
namespace {

const PluginSpec& Spec() {
  static const PluginSpec spec{kOpLibsFile,          kOpLibsEntry,
                               "VTENSOR_OPLIBS",     VT_OPLIBS_INSTALL_DIR,
                               "vtensor's operator libraries plugin", kOpLibsAbi,
                               sizeof(OpLibs)};
  return spec;
}

}  // namespace

std::vector<std::string> OpLibsCandidates() { return PluginCandidates(Spec()); }

Expected<const OpLibs*> LoadOpLibsFrom(const std::vector<std::string>& paths,
                                       const std::string& what) {
  VT_ASSIGN_OR_RETURN(const void* table, LoadPluginFrom(Spec(), paths, what));
  return static_cast<const OpLibs*>(table);
}

Expected<const OpLibs*> LoadOpLibs(const std::string& what) {
  // Loaded once, failure included (a failed search is not repeated for every node); the error
  // names each operator that asks.
  static const Expected<const OpLibs*> loaded = LoadOpLibsFrom(OpLibsCandidates(), "");
  if (loaded.ok()) return loaded;
  return FailedPrecondition(what + loaded.status().message());
}

}  // namespace vt::ops
