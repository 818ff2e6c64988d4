// The findings of `vtensor check --json` as one JSON object, shared by the command and the Python
// package's `vtensor.check`:
//   {"model": PATH, "readable": true, "compiled_tensors": N, "errors": E, "warnings": W,
//    "findings": [{"severity", "rule", "entry", "source_name", "field", "message"}, ...]}
// (rules and severities: format/model_checker.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "vtensor/base/status.h"

namespace vt {

// Checks `model_path`; `decode` runs each payload's decoder (or unpacks it through its layout)
// and compares it with the source initializer. Errors (the model cannot be read): NotFound,
// IoError, InvalidArgument naming the file.
Expected<nlohmann::json> CheckModelReport(const std::string& model_path, bool decode);

}  // namespace vt
