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
  return LoadPluginTableFrom<OpLibs>(Spec(), paths, what);
}

Expected<const OpLibs*> LoadOpLibs(const std::string& what) {
  return LoadPluginOnce<OpLibs>(Spec(), what);
}

}  // namespace vt::ops
