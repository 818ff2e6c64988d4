// `vtensor check MODEL [--json] [--decode]`: libonnx checks plus every compiled-tensor rule of
// docs/design.md §4 (format/model_checker.h). --decode runs each type's stored decoder function with
// vtensor's runtime (runtime/decoder_runner.h) and compares with the source initializer.
// Exit 0: no error; 1: errors; 2: model unreadable.
#include <fmt/core.h>

#include "tools/check_report.h"
#include "tools/commands.h"

namespace vt::cli {

int CheckCommand(const CheckArgs& a) {
  auto report = CheckModelReport(a.model, a.decode);
  if (!report.ok()) {
    if (a.json) {
      nlohmann::json j = {
          {"model", a.model}, {"readable", false}, {"error", report.status().message()}};
      fmt::print("{}\n", j.dump(2));
    }
    fmt::print(stderr, "error: {}\n", report.status().message());
    return 2;
  }
  const nlohmann::json& j = *report;
  if (a.json) {
    fmt::print("{}\n", j.dump(2));
  } else {
    for (const auto& f : j["findings"]) {
      const std::string source = f["source_name"];
      fmt::print("{}: {} [{}] entry {}{}: {}: {}\n", a.model, f["severity"].get<std::string>(),
                 f["rule"].get<std::string>(), f["entry"].get<int>(),
                 source.empty() ? "" : " (" + source + ")", f["field"].get<std::string>(),
                 f["message"].get<std::string>());
    }
    fmt::print("{}: {} compiled tensors, {} errors, {} warnings\n", a.model,
               j["compiled_tensors"].get<int>(), j["errors"].get<int>(), j["warnings"].get<int>());
  }
  return j["errors"].get<int>() ? 1 : 0;
}

}  // namespace vt::cli
