// `vtensor passes MODEL [--target T] [--print-after-all]`: runs the target's
// pass pipeline and prints the graph with its layouts in text form (passes/graph_printer.h).
#include <fmt/core.h>

#include "tools/commands.h"
#include "vtensor/passes/capture.h"
#include "vtensor/passes/graph_printer.h"
#include "vtensor/passes/pass.h"

namespace vt::cli {

int PassesCommand(const PassesArgs& a) {
  auto m = LoadModelForCompile(a.model);
  if (!m.ok()) {
    fmt::print(stderr, "error: {}\n", m.status().message());
    return 2;
  }
  RunPassesOptions opts;
  if (a.print_after_all) {
    fmt::print("// ----- after capture -----\n{}", PrintGraphText(*m));
    opts.after_pass = [](const char* pass, const Model& model) {
      fmt::print("// ----- after {} -----\n{}", pass, PrintGraphText(model));
    };
  }
  Status st = RunPasses(*m, a.target, opts);
  if (!st.ok()) {
    fmt::print(stderr, "error: {}: {}\n", a.model, st.message());
    return 2;
  }
  if (!a.print_after_all) fmt::print("{}", PrintGraphText(*m));
  return 0;
}

}  // namespace vt::cli
