#include "format/onnx_defs.h"

#include "vtensor/base/plugin.h"

namespace vt {
namespace {

const PluginSpec& Spec() {
  static const PluginSpec spec{kOnnxDefsFile,      kOnnxDefsEntry,
                               "VTENSOR_ONNXDEFS", VT_ONNXDEFS_INSTALL_DIR,
                               "vtensor's ONNX operator definitions plugin", kOnnxDefsAbi,
                               sizeof(OnnxDefs)};
  return spec;
}

}  // namespace

std::vector<std::string> OnnxDefsCandidates() { return PluginCandidates(Spec()); }

Expected<const OnnxDefs*> LoadOnnxDefsFrom(const std::vector<std::string>& paths,
                                           const std::string& what) {
  return LoadPluginTableFrom<OnnxDefs>(Spec(), paths, what);
}

Expected<const OnnxDefs*> LoadOnnxDefs(const std::string& what) {
  return LoadPluginOnce<OnnxDefs>(Spec(), what);
}

}  // namespace vt
