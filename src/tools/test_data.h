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
// The path of input I's file in a test data set directory: DIR/input_I.pb.
std::string InputFilePath(const std::string& dir, size_t i);
// DIR/input_I.pb for input I of s.inputs(). Errors: as LoadInputs.
Expected<Value> LoadInput(const Session& s, const std::string& dir, size_t i);
// DIR/output_N.pb for each output; nullopt where the file does not exist.
Expected<std::vector<std::optional<Value>>> LoadExpectedOutputs(const Session& s,
                                                                const std::string& dir);

// Writes DIR/output_N.pb (a TensorProto named after the output; format "pb") or
// DIR/output_N.npy (format "npy", tools/npy.h) for each tensor output, so two runs can be
// compared byte for byte. Creates DIR if needed. Errors: InvalidArgument for a non-tensor
// output (or, for npy, a string/bfloat16 one), IoError naming the path and the reason.
Status SaveOutputs(const Session& s, const std::vector<Value>& outputs, const std::string& dir,
                   const std::string& format = "pb");

}  // namespace vt
