// `vtensor passes MODEL [--target T] [--print-after-all] [--session]`: runs the target's
// pass pipeline and prints the graph with its layouts in text form (passes/graph_printer.h).
// --session runs the passes a Session runs at creation instead (constant and shape folding,
// the fusions: runtime/session.h SessionPassNames), on the model as a Session loads it, and
// prints "pass NAME: N rewrites" per pass before the graph, so the fused nodes can be seen.
#include <fmt/core.h>

#include "format/onnx_defs.h"
#include "tools/commands.h"
#include "tools/json_types.h"
#include "vtensor/passes/capture.h"
#include "vtensor/passes/graph_printer.h"
#include "vtensor/passes/pass.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/runtime/session.h"

namespace vt::cli {

int PassesCommand(const PassesArgs& a) {
  if (a.session && !a.target.empty()) {
    fmt::print(stderr, "error: --session and --target exclude each other\n");
    return 2;
  }
  ImportOptions io;
  io.infer_shapes = !a.session;  // as Session::Load, which binds shapes at run time
  // Shape inference at import is best effort: without the plugin that holds it, say so.
  if (io.infer_shapes)
    if (auto defs = LoadOnnxDefs("shape inference"); !defs.ok())
      fmt::print(stderr, "note: values keep the types the model declares: {}\n",
                 defs.status().message());
  auto m = a.session ? LoadModel(a.model, io) : LoadModelForCompile(a.model);
  if (!m.ok()) {
    fmt::print(stderr, "error: {}\n", m.status().message());
    return 2;
  }
  RunPassesOptions opts;
  // --json: each pass run, in order, with its rewrite count.
  nlohmann::json passes = nlohmann::json::array();
  if (a.json) {
    opts.report = [&](const Pass& pass) {
      passes.push_back({{"name", pass.name()}, {"rewrites", pass.rewrites()}});
    };
  } else {
    if (a.print_after_all) {
      fmt::print("// ----- after capture -----\n{}", PrintGraphText(*m));
      opts.after_pass = [](const char* pass, const Model& model) {
        fmt::print("// ----- after {} -----\n{}", pass, PrintGraphText(model));
      };
    }
    if (a.session)
      opts.report = [](const Pass& pass) {
        fmt::print("pass {}: {} rewrites\n", pass.name(), pass.rewrites());
      };
  }
  Status st = a.session ? RunNamedPasses(*m, SessionPassNames(SessionOptions{}), opts)
                        : RunPasses(*m, a.target, opts);
  if (!st.ok()) {
    fmt::print(stderr, "error: {}: {}\n", a.model, st.message());
    return 2;
  }
  if (a.json) {
    PrintJson({{"model", a.model},
               {"pipeline", a.session ? "session" : a.target.empty() ? "none" : a.target},
               {"passes", passes}, {"graph", PrintGraphText(*m)}});
    return 0;
  }
  if (!a.print_after_all) fmt::print("{}", PrintGraphText(*m));
  return 0;
}

}  // namespace vt::cli
