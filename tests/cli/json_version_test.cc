// `--json` of run, bench, info, digest and passes (parsed, fields checked), `--version` on the
// binary and every subcommand, and `-v` load decisions (docs/cli.md).
#include <nlohmann/json.hpp>

#include <regex>

#include "cli_test_base.h"

namespace vt::testing {
namespace {

class JsonVersion : public CliTest {
 protected:
  // y = MatMul(x, w): x float[batch,16], w float[16,32] (an initializer compile packs).
  std::string WriteMatMulModel() {
    onnx::ModelProto m = AddModel();
    auto* g = m.mutable_graph();
    g->mutable_input(0)->Clear();
    AddFloatIO(g->mutable_input(0), "x", {1, 16});
    g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)
        ->set_dim_param("batch");
    g->mutable_output(0)->Clear();
    AddFloatIO(g->mutable_output(0), "y", {1, 32});
    *g->mutable_initializer(0) = FloatTensor("w", {16, 32}, std::vector<float>(16 * 32, 0.5f));
    g->mutable_node(0)->set_op_type("MatMul");
    return WriteModel(m);
  }
  // Runs vtensor and parses its output (stdout only is printed with --json) as JSON.
  static nlohmann::json Json(const std::vector<std::string>& args) {
    auto r = Vtensor(args);
    EXPECT_EQ(r.Describe(), "exit 0") << r.output;
    auto j = nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON:\n" << r.output;
    return j;
  }
};

TEST_F(JsonVersion, VersionOnBinaryAndEverySubcommand) {
  const std::regex want(R"(^vtensor \d+\.\d+\.\d+( \(git [^)]+\))?\n$)");
  auto top = Vtensor({"--version"});
  EXPECT_EQ(top.Describe(), "exit 0");
  EXPECT_TRUE(std::regex_match(top.output, want)) << top.output;
  for (const char* sub : {"run", "info", "bench", "generate", "digest", "check", "inspect",
                          "compile", "bench-load", "passes", "export"}) {
    auto r = Vtensor({sub, "--version"});
    EXPECT_EQ(r.Describe(), "exit 0") << sub << ": " << r.output;
    EXPECT_EQ(r.output, top.output) << sub;
  }
}

TEST_F(JsonVersion, RunAndBench) {
  std::string m = WriteMatMulModel();
  auto run = Json({"run", m, "--free-dim", "batch=3", "--json"});
  ASSERT_EQ(run["outputs"].size(), 1u);
  EXPECT_EQ(run["outputs"][0]["name"], "y");
  EXPECT_EQ(run["outputs"][0]["dtype"], "float32");
  EXPECT_EQ(run["outputs"][0]["shape"], nlohmann::json({3, 32}));
  EXPECT_TRUE(run["outputs"][0]["pass"].is_null());
  EXPECT_EQ(run["pass"], true);
  auto bench = Json({"bench", m, "--free-dim", "batch=1", "--runs", "4", "--json"});
  EXPECT_EQ(bench["runs"], 4);
  for (const char* k : {"session_create_ms", "first_run_ms", "median_ms", "p50_ms", "p90_ms",
                        "p99_ms", "min_ms", "mean_ms"}) {
    ASSERT_TRUE(bench[k].is_number()) << k;
    EXPECT_GT(bench[k].get<double>(), 0.0) << k;
  }
  auto ms = [&](const char* k) { return bench[k].get<double>(); };
  EXPECT_LE(ms("min_ms"), ms("p50_ms"));
  EXPECT_LE(ms("p50_ms"), ms("p90_ms"));
  EXPECT_LE(ms("p90_ms"), ms("p99_ms"));
}

TEST_F(JsonVersion, InfoDigestPasses) {
  std::string m = WriteMatMulModel();
  auto info = Json({"info", m, "--json"});
  EXPECT_EQ(info["ir_version"], 8);
  EXPECT_EQ(info["opsets"]["ai.onnx"], 13);
  EXPECT_EQ(info["inputs"][0]["shape"], nlohmann::json::parse(R"(["batch", 16])"));
  EXPECT_EQ(info["initializers"]["bytes"], 16 * 32 * 4);
  EXPECT_EQ(info["op_histogram"][0], nlohmann::json::parse(R"({"op": "MatMul", "count": 1})"));
  auto digest = Json({"digest", m, "--json"});
  EXPECT_EQ(digest["algorithm"], "blake3");
  ASSERT_EQ(digest["tensors"].size(), 1u);
  EXPECT_EQ(digest["tensors"][0]["name"], "w");
  auto text = Vtensor({"digest", m});
  EXPECT_EQ(text.output, "w blake3 " + digest["tensors"][0]["digest"].get<std::string>() + "\n");
  auto passes = Json({"passes", m, "--session", "--json"});
  EXPECT_EQ(passes["pipeline"], "session");
  ASSERT_FALSE(passes["passes"].empty());
  EXPECT_TRUE(passes["passes"][0]["rewrites"].is_number());
  EXPECT_NE(passes["graph"].get<std::string>().find("MatMul"), std::string::npos);
}

TEST_F(JsonVersion, VerboseShowsLoadDecisions) {
  std::string m = WriteMatMulModel();
  auto plain = Vtensor({"run", m, "--free-dim", "batch=1", "-v"});
  EXPECT_EXIT_WITH(plain, 0, "load: weight w (");
  EXPECT_NE(plain.output.find("packed at load"), std::string::npos) << plain.output;
  EXPECT_NE(plain.output.find("load: 1 weights decided, 0 compiled entries: 0 hit, 0 miss"),
            std::string::npos) << plain.output;
  ASSERT_EQ(Vtensor({"compile", m, "-o", Path("c.onnx"), "--no-progress"}).Describe(), "exit 0");
  auto hit = Vtensor({"bench", Path("c.onnx"), "--free-dim", "batch=1", "--runs", "1", "--verbose"});
  EXPECT_EXIT_WITH(hit, 0, "load: entry 0 w ");
  EXPECT_NE(hit.output.find(": HIT"), std::string::npos) << hit.output;
  EXPECT_NE(hit.output.find("1 compiled entries: 1 hit, 0 miss"), std::string::npos) << hit.output;
  // Without -v nothing of it.
  EXPECT_EQ(Vtensor({"run", m, "--free-dim", "batch=1"}).output.find("load:"), std::string::npos);
}

}  // namespace
}  // namespace vt::testing
