// `vtensor run MODEL [input flags] [--rtol R] [--atol A] [--print|--print-all]
// [--save-outputs DIR [--save-format pb|npy]] [--json] [--profile-ops FILE]`: one run, each output compared with
// DIR/output_N.pb where --data DIR has it (docs/cli.md).
#include <fmt/core.h>

#include <cstdio>

#include "tools/commands.h"
#include "tools/compare.h"
#include "tools/json_types.h"
#include "tools/op_trace.h"
#include "tools/test_data.h"
#include "tools/value_print.h"

namespace vt::cli {

namespace {
int Fail(const Status& st) {
  fmt::print(stderr, "error: {}\n", st.message());
  return 2;
}
}  // namespace

int RunCommand(const RunArgs& a) {
  auto so = MakeSessionOptions(a.session, a.threads);
  if (!so.ok()) return Fail(so.status());
  auto s = Session::Load(a.model, *so);
  if (!s.ok()) return Fail(s.status());
  Session& sess = **s;
  ReportLoad(a.session, sess);
  auto inputs = MakeInputs(sess, a.inputs);
  if (!inputs.ok()) return Fail(inputs.status());
  std::vector<std::optional<Value>> expected(sess.outputs().size());
  if (!a.inputs.data_dir.empty()) {
    auto e = LoadExpectedOutputs(sess, a.inputs.data_dir);
    if (!e.ok()) return Fail(e.status());
    expected = std::move(*e);
  }
  OpProfile profile;
  auto outs = sess.Run(*inputs, a.profile_ops.empty() ? nullptr : &profile);
  if (!outs.ok()) return Fail(outs.status());
  if (!a.profile_ops.empty()) {
    Status st = WriteChromeTrace(profile.events(), a.profile_ops);
    if (!st.ok()) return Fail(st);
  }
  if (!a.save_outputs.empty()) {
    Status st = SaveOutputs(sess, *outs, a.save_outputs, a.save_format);
    if (!st.ok()) return Fail(st);
  }
  bool all_pass = true;
  nlohmann::json report = nlohmann::json::array();
  for (size_t i = 0; i < outs->size(); ++i) {
    const Value& v = (*outs)[i];
    std::string name = sess.outputs()[i].name;
    std::optional<CompareResult> r;
    if (expected[i]) {
      r = CompareValues(v, *expected[i], a.rtol, a.atol);
      all_pass &= r->pass;
    }
    if (a.json) {
      nlohmann::json o = {{"name", name}, {"value", DescribeValue(v)}};
      if (v.is_tensor()) {
        o["dtype"] = DTypeName(v.tensor().dtype());
        o["shape"] = ShapeJson(v.tensor().shape());
      }
      o["max_abs_diff"] = r ? nlohmann::json(r->max_abs_diff) : nlohmann::json(nullptr);
      o["pass"] = r ? nlohmann::json(r->pass) : nlohmann::json(nullptr);
      if (r && !r->pass) o["detail"] = r->detail;
      if ((a.print || a.print_all) && v.is_tensor()) o["text"] = FormatTensor(v.tensor(), a.print_all);
      report.push_back(std::move(o));
      continue;
    }
    if (r) {
      fmt::print("{}  {}  max_abs_diff={:.3g}  {}{}\n", name, DescribeValue(v), r->max_abs_diff,
                 r->pass ? "PASS" : "FAIL", r->pass ? "" : "  (" + r->detail + ")");
    } else {
      fmt::print("{}  {}  max_abs_diff=-  (no reference)\n", name, DescribeValue(v));
    }
    if ((a.print || a.print_all) && v.is_tensor())
      fmt::print("{}\n", FormatTensor(v.tensor(), a.print_all));
  }
  if (a.json) PrintJson({{"model", a.model}, {"outputs", report}, {"pass", all_pass}});
  if (!all_pass && !a.json) {
    std::fflush(stdout);  // after the per-output lines
    fmt::print(stderr,
               "run: outputs differ from the reference beyond atol {:.3g} + rtol {:.3g} * "
               "|expected| (by default ONNX's operator-test tolerances); a reference computed by "
               "another runtime over a whole model may need wider ones (--atol, --rtol)\n",
               a.atol, a.rtol);
  }
  return all_pass ? 0 : 1;
}

}  // namespace vt::cli
