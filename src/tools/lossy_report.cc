#include "tools/lossy_report.h"

#include <fmt/format.h>

#include "tools/compare.h"
#include "tools/test_data.h"
#include "vtensor/runtime/session.h"

namespace vt {
namespace {

struct Outputs {
  std::vector<std::string> names;
  std::vector<Value> values;
};

// One run of MODEL on DIR's inputs, silent about its cache.
Expected<Outputs> RunOn(const std::string& model_path, SessionOptions so,
                        const std::string& data_dir) {
  so.cache_warning = nullptr;
  VT_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::Load(model_path, so));
  VT_ASSIGN_OR_RETURN(std::vector<Value> inputs, LoadInputs(*s, data_dir));
  auto out = s->Run(inputs);
  if (!out.ok()) return out.take_status().WithContext(model_path);
  Outputs o;
  for (const auto& spec : s->outputs()) o.names.push_back(spec.name);
  o.values = std::move(*out);
  return o;
}

}  // namespace

Expected<std::vector<OutputDifference>> MeasureCompiledDifference(
    const std::string& source_path, const std::string& compiled_path, WeightProfile profile,
    const std::string& data_dir) {
  SessionOptions source_opts;
  source_opts.cache.enabled = false;
  VT_ASSIGN_OR_RETURN(Outputs want, RunOn(source_path, source_opts, data_dir));
  SessionOptions compiled_opts;
  compiled_opts.profile = profile;
  VT_ASSIGN_OR_RETURN(Outputs got, RunOn(compiled_path, compiled_opts, data_dir));
  if (got.values.size() != want.values.size())
    return InvalidArgument(compiled_path + ": " + std::to_string(got.values.size()) +
                           " outputs, the source model " + std::to_string(want.values.size()));
  std::vector<OutputDifference> diffs;
  for (size_t i = 0; i < got.values.size(); ++i) {
    const Value& g = got.values[i];
    const Value& w = want.values[i];
    if (g.is_tensor() && w.is_tensor() &&
        (g.tensor().dtype() != w.tensor().dtype() || g.tensor().shape() != w.tensor().shape()))
      return InvalidArgument(fmt::format("{}: output '{}' is {}, the source model's {}",
                                         compiled_path, got.names[i], DescribeValue(g),
                                         DescribeValue(w)));
    CompareResult c = CompareValues(g, w, /*rtol=*/0.0, /*atol=*/0.0);
    diffs.push_back({got.names[i], c.max_abs_diff});
  }
  return diffs;
}

std::string LossyCompileWarning(const std::string& out_path, const CompileModelSummary& sum,
                                const std::vector<OutputDifference>& diffs,
                                const std::string& data_dir) {
  size_t lossy = 0;
  std::string forms;
  for (const auto& [type, count] : sum.lossy) {
    lossy += count;
    forms += fmt::format("{}{} {}", forms.empty() ? "" : ", ", type, count);
  }
  if (lossy == 0) return "";
  std::string line = fmt::format(
      "vtensor: warning: {}: {} of {} compiled tensors are lossy ({}): sessions under "
      "--profile compact compute with requantized weights and their results differ from the "
      "source model's",
      out_path, lossy, sum.entries, forms);
  if (diffs.empty()) return line + "; `vtensor compile --data DIR` measures the difference";
  line += "; max abs difference on " + data_dir + ":";
  for (size_t i = 0; i < diffs.size(); ++i)
    line += fmt::format("{} {} {:.3g}", i == 0 ? "" : ",", diffs[i].output, diffs[i].max_abs_diff);
  return line;
}

}  // namespace vt
