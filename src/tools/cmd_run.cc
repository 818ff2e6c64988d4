#include <fmt/core.h>

#include "tools/commands.h"
#include "tools/compare.h"
#include "tools/test_data.h"

namespace vt::cli {

int RunCommand(const RunArgs& a) {
  auto so = MakeSessionOptions(a.session, a.threads);
  if (!so.ok()) {
    fmt::print(stderr, "error: {}\n", so.status().message());
    return 2;
  }
  auto s = Session::Load(a.model, *so);
  if (!s.ok()) {
    fmt::print(stderr, "error: {}\n", s.status().message());
    return 2;
  }
  Session& sess = **s;
  if (a.session.explain) PrintExplain(sess, stdout);
  auto inputs = a.data_dir.empty() ? ZeroInputs(sess) : LoadInputs(sess, a.data_dir);
  if (!inputs.ok()) {
    fmt::print(stderr, "error: {}\n", inputs.status().message());
    return 2;
  }
  std::vector<std::optional<Value>> expected(sess.outputs().size());
  if (!a.data_dir.empty()) {
    auto e = LoadExpectedOutputs(sess, a.data_dir);
    if (!e.ok()) {
      fmt::print(stderr, "error: {}\n", e.status().message());
      return 2;
    }
    expected = std::move(*e);
  }
  auto outs = sess.Run(*inputs);
  if (!outs.ok()) {
    fmt::print(stderr, "error: {}\n", outs.status().message());
    return 2;
  }
  if (!a.save_outputs.empty()) {
    Status st = SaveOutputs(sess, *outs, a.save_outputs);
    if (!st.ok()) {
      fmt::print(stderr, "error: {}\n", st.message());
      return 2;
    }
  }
  bool all_pass = true;
  for (size_t i = 0; i < outs->size(); ++i) {
    const Value& v = (*outs)[i];
    std::string name = sess.outputs()[i].name;
    if (expected[i]) {
      CompareResult r = CompareValues(v, *expected[i], a.rtol, a.atol);
      all_pass &= r.pass;
      fmt::print("{}  {}  max_abs_diff={:.3g}  {}{}\n", name, DescribeValue(v), r.max_abs_diff,
                 r.pass ? "PASS" : "FAIL", r.pass ? "" : "  (" + r.detail + ")");
    } else {
      fmt::print("{}  {}  max_abs_diff=-  (no reference)\n", name, DescribeValue(v));
    }
  }
  return all_pass ? 0 : 1;
}

}  // namespace vt::cli
