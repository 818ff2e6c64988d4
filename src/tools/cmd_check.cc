// `vtensor check MODEL [--json] [--decode]`: libonnx checks plus every compiled-tensor rule of
// docs/design.md §4 (format/model_checker.h). --decode runs each type's stored decoder function with
// vtensor's runtime (runtime/decoder_runner.h) and compares with the source initializer.
// Exit 0: no error; 1: errors; 2: model unreadable.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "tools/commands.h"
#include "vtensor/format/model_checker.h"
#include "vtensor/runtime/decoder_runner.h"

namespace vt::cli {

int CheckCommand(const CheckArgs& a) {
  auto m = ReadCompiledModel(a.model);
  if (!m.ok()) {
    if (a.json) {
      nlohmann::json j = {{"model", a.model}, {"readable", false}, {"error", m.status().message()}};
      fmt::print("{}\n", j.dump(2));
    }
    fmt::print(stderr, "error: {}\n", m.status().message());
    return 2;
  }
  CheckOptions opts;
  opts.decode = a.decode;
  opts.run_decoder = RunDecoderFunction;
  auto findings = CheckCompiledModel(*m, opts);
  int errors = 0, warnings = 0;
  for (const auto& f : findings) {
    errors += f.severity == Severity::kError;
    warnings += f.severity == Severity::kWarning;
  }
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& f : findings)
      list.push_back({{"severity", SeverityName(f.severity)}, {"rule", f.rule},
                      {"entry", f.entry}, {"source_name", f.source_name},
                      {"field", f.field}, {"message", f.message}});
    nlohmann::json j = {{"model", a.model},
                        {"readable", true},
                        {"compiled_tensors", m->ext.compiled_tensors_size()},
                        {"errors", errors},
                        {"warnings", warnings},
                        {"findings", list}};
    fmt::print("{}\n", j.dump(2));
  } else {
    for (const auto& f : findings)
      fmt::print("{}: {} [{}] entry {}{}: {}: {}\n", a.model, SeverityName(f.severity), f.rule,
                 f.entry, f.source_name.empty() ? "" : " (" + f.source_name + ")", f.field,
                 f.message);
    fmt::print("{}: {} compiled tensors, {} errors, {} warnings\n", a.model,
               m->ext.compiled_tensors_size(), errors, warnings);
  }
  return errors ? 1 : 0;
}

}  // namespace vt::cli
