// Reading inputs/expected outputs in the ONNX backend-test layout: DIR/input_N.pb,
// DIR/output_N.pb, N in graph input/output order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vtensor/runtime/session.h"

namespace vt {

// Loads DIR/input_N.pb for every fed input. Errors: NotFound naming the missing file,
// InvalidArgument for a malformed file.
Expected<std::vector<Value>> LoadInputs(const Session& s, const std::string& dir);
// Zero tensors of each input's declared shape (symbolic/unknown dims become 1).
Expected<std::vector<Value>> ZeroInputs(const Session& s);
// DIR/output_N.pb for each output; nullopt where the file does not exist.
Expected<std::vector<std::optional<Value>>> LoadExpectedOutputs(const Session& s,
                                                                const std::string& dir);

// Writes DIR/output_N.pb (a TensorProto named after the output) for each tensor output, so two
// runs can be compared byte for byte. Creates DIR if needed. Errors: InvalidArgument for a
// non-tensor output, IoError.
Status SaveOutputs(const Session& s, const std::vector<Value>& outputs, const std::string& dir);

}  // namespace vt
