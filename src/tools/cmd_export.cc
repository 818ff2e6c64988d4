// `vtensor export MODEL --format json|stablehlo [--target T] -o OUT [--params OUT.irpa]
// [--param-scope S] [--externalize-above BYTES] [--per-type-layouts] [--input-shape N=DxD...]
// [--input-value N=V,...]`
//. Load + capture, the target's passes, then one emitter. Everything is
// built in memory first and written atomically, so a failed export leaves no file behind.
#include <fmt/core.h>

#include <cerrno>
#include <cstdlib>
#include <map>

#include "format/onnx_defs.h"
#include "tools/commands.h"
#include "vtensor/base/file.h"
#include "vtensor/export/irpa_writer.h"
#include "vtensor/export/json_export.h"
#include "vtensor/export/stablehlo_export.h"
#include "vtensor/passes/capture.h"
#include "vtensor/passes/pass.h"

namespace vt::cli {

namespace {

// "x=1x3x224x224" -> ("x", [1,3,224,224]).
Status ParseInputShape(const std::string& s, std::map<std::string, Shape>* out) {
  const size_t eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    return InvalidArgument("--input-shape '" + s + "': expected NAME=D0xD1x... (e.g. x=1x3x224x224)");
  Shape shape;
  const std::string dims = s.substr(eq + 1);
  size_t pos = 0;
  while (pos <= dims.size()) {
    size_t x = dims.find('x', pos);
    if (x == std::string::npos) x = dims.size();
    const std::string d = dims.substr(pos, x - pos);
    if (d == "?") {  // stays dynamic (docs/export.md, "Dynamic dims")
      shape.push_back(-1);
      pos = x + 1;
      continue;
    }
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(d.c_str(), &end, 10);
    if (d.empty() || *end != '\0' || errno != 0 || v < 0)
      return InvalidArgument(
          fmt::format("--input-shape '{}': dim '{}' is not a non-negative integer or ?", s, d));
    shape.push_back(v);
    pos = x + 1;
  }
  (*out)[s.substr(0, eq)] = shape;
  return Status::Ok();
}

// "sr=16000" or "scales=1,2" -> ("sr", [16000]).
Status ParseInputValue(const std::string& s, std::map<std::string, std::vector<double>>* out) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    return InvalidArgument("--input-value '" + s + "': expected NAME=V[,V...]");
  std::vector<double> vals;
  size_t pos = eq + 1;
  while (pos <= s.size()) {
    size_t c = s.find(',', pos);
    if (c == std::string::npos) c = s.size();
    const std::string v = s.substr(pos, c - pos);
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || errno != 0)
      return InvalidArgument(fmt::format("--input-value '{}': '{}' is not a number", s, v));
    vals.push_back(d);
    pos = c + 1;
  }
  (*out)[s.substr(0, eq)] = vals;
  return Status::Ok();
}

int Fail(const std::string& msg) {
  fmt::print(stderr, "error: {}\n", msg);
  return 2;
}

}  // namespace

int ExportCommand(const ExportArgs& a) {
  if (a.format != "json" && a.format != "stablehlo")
    return Fail("--format must be json or stablehlo, got '" + a.format + "'");
  if (!a.params.empty() && a.format != "stablehlo")
    return Fail("--params is only meaningful with --format stablehlo");
  StableHloOptions so;
  so.target = a.target;
  so.param_scope = a.param_scope;
  so.externalize = !a.params.empty();
  so.externalize_above = a.externalize_above;
  so.per_type_layouts = a.per_type_layouts;
  for (const auto& s : a.input_shapes) {
    Status st = ParseInputShape(s, &so.input_shapes);
    if (!st.ok()) return Fail(st.message());
  }
  for (const auto& s : a.input_values) {
    Status st = ParseInputValue(s, &so.input_values);
    if (!st.ok()) return Fail(st.message());
  }
  // Shape inference at import is best effort: without the plugin that holds it, say so.
  if (auto defs = LoadOnnxDefs("shape inference"); !defs.ok())
    fmt::print(stderr, "note: values keep the types the model declares: {}\n",
               defs.status().message());
  auto m = LoadModelForCompile(a.model);
  if (!m.ok()) return Fail(m.status().message());
  Status st = RunPasses(*m, a.target);
  if (!st.ok()) return Fail(a.model + ": " + st.message());

  if (a.format == "json") {
    JsonExportOptions jo;
    jo.target = a.target;
    auto text = ExportJson(*m, jo);
    if (!text.ok()) return Fail(a.model + ": " + text.status().message());
    st = WriteFileAtomic(a.out, *text);
    if (!st.ok()) return Fail(st.message());
    return 0;
  }

  auto mod = ExportStableHlo(*m, so);
  if (!mod.ok()) return Fail(a.model + ": " + mod.status().message());
  std::string archive;
  if (so.externalize) {
    std::vector<IrpaEntry> entries;
    for (const auto& p : mod->params) entries.push_back({p.key, p.layout_text, p.bytes});
    auto bytes = SerializeIrpa(entries);
    if (!bytes.ok()) return Fail(bytes.status().message());
    archive = std::move(*bytes);
  }
  // The archive first: the .mlir that references it only appears once it is complete.
  if (so.externalize) {
    st = WriteFileAtomic(a.params, archive);
    if (!st.ok()) return Fail(st.message());
  }
  st = WriteFileAtomic(a.out, mod->mlir);
  if (!st.ok()) return Fail(st.message());
  return 0;
}

}  // namespace vt::cli
