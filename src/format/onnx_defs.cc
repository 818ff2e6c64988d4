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
  VT_ASSIGN_OR_RETURN(const void* table, LoadPluginFrom(Spec(), paths, what));
  return static_cast<const OnnxDefs*>(table);
}

Expected<const OnnxDefs*> LoadOnnxDefs(const std::string& what) {
  // Loaded once, failure included (a failed search is not repeated); the error names each
  // caller in its own words.
  static const Expected<const OnnxDefs*> loaded = LoadOnnxDefsFrom(OnnxDefsCandidates(), "");
  if (loaded.ok()) return loaded;
  return FailedPrecondition(what + loaded.status().message());
}

}  // namespace vt
