#include "tools/check_report.h"

#include "format/onnx_defs.h"
#include "vtensor/format/model_checker.h"
#include "vtensor/runtime/decoder_runner.h"

namespace vt {

Expected<nlohmann::json> CheckModelReport(const std::string& model_path, bool decode) {
  VT_ASSIGN_OR_RETURN(CompiledModel m, ReadCompiledModel(model_path));
  // Without ONNX's checker the check cannot be made: an error of the tool, not a finding
  // about the model.
  VT_RETURN_IF_ERROR(LoadOnnxDefs("vtensor check (ONNX's model checker)").status());
  CheckOptions opts;
  opts.decode = decode;
  opts.run_decoder = RunDecoderFunction;
  int errors = 0, warnings = 0;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& f : CheckCompiledModel(m, opts)) {
    errors += f.severity == Severity::kError;
    warnings += f.severity == Severity::kWarning;
    list.push_back({{"severity", SeverityName(f.severity)}, {"rule", f.rule},
                    {"entry", f.entry}, {"source_name", f.source_name},
                    {"field", f.field}, {"message", f.message}});
  }
  return nlohmann::json{{"model", model_path},
                        {"readable", true},
                        {"compiled_tensors", m.ext.compiled_tensors_size()},
                        {"errors", errors},
                        {"warnings", warnings},
                        {"findings", std::move(list)}};
}

}  // namespace vt
