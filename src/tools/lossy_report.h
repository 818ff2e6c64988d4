// What a compile with lossy forms changes (docs/compiled-tensors.md, "Lossy forms"): under the
// `compact` profile, `vtensor compile` may store weights requantized (int4 blocks, int8 per
// channel), and a session of that profile computes with them, so its results differ from the
// source model's. The command says so once, as a warning naming the forms and, given a test
// data set, the largest difference it measured on each output.
#pragma once

#include <string>
#include <vector>

#include "tools/compile_model.h"
#include "vtensor/base/status.h"

namespace vt {

// The largest |compiled - source| over one output's elements (0 for outputs that match
// exactly, integers and strings included).
struct OutputDifference {
  std::string output;  // graph output name
  double max_abs_diff = 0.0;
};

// Runs the source model (no compiled tensors used, every weight packed as given under the
// exact profile) and the compiled model (its compiled tensors under `profile`) on the inputs of
// the test data set DIR (DIR/input_N.pb, tools/test_data.h) and compares their outputs, in
// graph output order. Errors: the loads' and runs' errors (naming the model and the input
// file); InvalidArgument when the two models' outputs differ in count, shape or type.
Expected<std::vector<OutputDifference>> MeasureCompiledDifference(
    const std::string& source_path, const std::string& compiled_path, WeightProfile profile,
    const std::string& data_dir);

// The warning for a compile whose summary has lossy entries, e.g.
//   vtensor: warning: out.onnx: 2 of 3 compiled tensors are lossy (vt.q4_0_gemm_b 1,
//   vt.s8_per_channel_gemm_b_panels 1): sessions under --profile compact compute with
//   requantized weights and their results differ from the source model's; max abs difference
//   on tests/data: y 0.0123, z 0.0045
// `diffs` empty: no measurement (the line then suggests `--data DIR`). "" without lossy entries.
std::string LossyCompileWarning(const std::string& out_path, const CompileModelSummary& sum,
                                const std::vector<OutputDifference>& diffs,
                                const std::string& data_dir);

}  // namespace vt
