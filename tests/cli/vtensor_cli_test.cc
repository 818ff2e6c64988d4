// End-to-end tests of the `vtensor` CLI on well-formed models: exit codes 0 (pass) and
// 1 (mismatch), the per-output report, `info` and `bench`, the cache warning, and command-line
// errors.
#include "cli_test_base.h"

namespace vt::testing {
namespace {

class VtensorCli : public CliTest {
 protected:
  // model.onnx (y = x + w) and data/input_0.pb = {10..15}; returns the data dir.
  std::string WriteAddCase() {
    WriteModel(AddModel());
    std::string data = Path("data");
    std::filesystem::create_directories(data);
    WriteProto(data + "/input_0.pb", FloatTensor("x", {2, 3}, {10, 11, 12, 13, 14, 15}));
    return data;
  }
};

TEST_F(VtensorCli, RunPassesOnMatchingOutput) {
  std::string data = WriteAddCase();
  WriteProto(data + "/output_0.pb", FloatTensor("y", {2, 3}, {11, 13, 15, 17, 19, 21}));
  auto r = Vtensor({"run", Path("model.onnx"), "--data", data});
  EXPECT_EXIT_WITH(r, 0, "PASS");
  EXPECT_NE(r.output.find("y  float32[2,3]  max_abs_diff=0"), std::string::npos) << r.output;
}

TEST_F(VtensorCli, RunExitsOneOnMismatch) {
  std::string data = WriteAddCase();
  WriteProto(data + "/output_0.pb", FloatTensor("y", {2, 3}, {11, 13, 15, 17, 19, 99}));
  auto r = Vtensor({"run", Path("model.onnx"), "--data", data});
  EXPECT_EXIT_WITH(r, 1, "FAIL");
  EXPECT_NE(r.output.find("max_abs_diff=78"), std::string::npos) << r.output;
  // The hint names the tolerances used and the flags that set them.
  EXPECT_NE(r.output.find("beyond atol 1e-07 + rtol 0.001"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(--atol, --rtol)"), std::string::npos) << r.output;
}

TEST_F(VtensorCli, RunToleranceFlagsDecide) {
  std::string data = WriteAddCase();
  // |21 - 21.05| = 0.05: above the default 1e-7 + 1e-3 * 21.05, within either widened bound.
  WriteProto(data + "/output_0.pb", FloatTensor("y", {2, 3}, {11, 13, 15, 17, 19, 21.05f}));
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--data", data}), 1, "FAIL");
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--data", data, "--atol", "0.06"}), 0,
                   "PASS");
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--data", data, "--rtol", "3e-3"}), 0,
                   "PASS");
}

TEST_F(VtensorCli, RunWithoutReferenceOrDataExitsZero) {
  WriteAddCase();
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--data", Path("data")}), 0,
                   "no reference");
  // Without --data the inputs are zeros of the declared (here static) shape.
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx")}), 0, "y  float32[2,3]");
}

TEST_F(VtensorCli, RunWithThreads) {
  std::string data = WriteAddCase();
  WriteProto(data + "/output_0.pb", FloatTensor("y", {2, 3}, {11, 13, 15, 17, 19, 21}));
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--data", data, "--threads", "2"}), 0,
                   "PASS");
}

TEST_F(VtensorCli, InfoPrintsModelSummary) {
  WriteModel(AddModel());
  auto r = Vtensor({"info", Path("model.onnx")});
  EXPECT_EXIT_WITH(r, 0, "ir_version: 8");
  for (const char* want : {"opsets: ai.onnx=13", "producer: vtensor-cli-test",
                           "x: tensor(float32)[2,3]", "y: tensor(float32)[2,3]",
                           "initializers: 1 (24 bytes)", "nodes: 1", "Add"})
    EXPECT_NE(r.output.find(want), std::string::npos) << "missing '" << want << "' in:\n" << r.output;
}

TEST_F(VtensorCli, BenchPrintsLatency) {
  std::string data = WriteAddCase();
  auto r = Vtensor({"bench", Path("model.onnx"), "--data", data, "--runs", "3"});
  EXPECT_EXIT_WITH(r, 0, "median_ms:");
  for (const char* key : {"session_create_ms:", "runs: 3", "first_run_ms:", "first_result_ms:",
                          "first_result_cpu_ms:", "start_clock:", "p90_ms:", "min_ms:", "first_run_cpu_ms:",
                          "median_cpu_ms:", "first_run_page_faults:", "run_page_faults:"})
    EXPECT_NE(r.output.find(key), std::string::npos) << "missing '" << key << "' in:\n" << r.output;
}

// y [2,4] = x [2,3] * w [3,4]: one MatMul weight, so `compile` writes one entry.
onnx::ModelProto MatMulModel() {
  onnx::ModelProto m = AddModel();
  auto* g = m.mutable_graph();
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(4);
  *g->mutable_initializer(0) = FloatTensor("w", {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  g->mutable_node(0)->set_op_type("MatMul");
  return m;
}

// A compiled model copied without its .vtpack runs (every weight packed at load) and says so
// in one line on stderr, unless --quiet; --explain and `inspect --cache` print the full report
// instead; the compiled model beside its payload file says nothing.
TEST_F(VtensorCli, UnusedCompiledTensorsWarnOnceUnlessQuiet) {
  const std::string model = WriteModel(MatMulModel());
  const std::string compiled = Path("m.vt.onnx");
  EXPECT_EXIT_WITH(Vtensor({"compile", model, "-o", compiled, "--no-progress"}), 0, "");
  const char* warning = "compiled tensors not used (payload-missing 1)";
  auto full = Vtensor({"run", compiled});
  EXPECT_EXIT_WITH(full, 0, "y  float32[2,4]");
  EXPECT_EQ(full.output.find("vtensor: warning"), std::string::npos) << full.output;

  std::filesystem::create_directories(Path("copy"));
  const std::string copy = Path("copy/m.vt.onnx");
  std::filesystem::copy_file(compiled, copy);
  auto r = Vtensor({"run", copy});
  EXPECT_EXIT_WITH(r, 0, warning);
  EXPECT_NE(r.output.find("see `vtensor inspect " + copy + " --cache`"), std::string::npos)
      << r.output;
  const size_t first = r.output.find(warning);
  EXPECT_EQ(r.output.find(warning, first + 1), std::string::npos) << "warned twice:\n" << r.output;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", copy, "--quiet"}, {"run", copy, "--explain"},
        {"inspect", copy, "--cache"}}) {
    auto q = Vtensor(args);
    EXPECT_EQ(q.Describe(), "exit 0") << q.output;
    EXPECT_EQ(q.output.find("vtensor: warning"), std::string::npos) << args[2] << ":\n" << q.output;
  }
}

TEST_F(VtensorCli, UsageErrorsExitTwo) {
  WriteModel(AddModel());
  EXPECT_EQ(Vtensor({}).Describe(), "exit 2");
  EXPECT_EQ(Vtensor({"run"}).Describe(), "exit 2");
  EXPECT_EQ(Vtensor({"frobnicate", Path("model.onnx")}).Describe(), "exit 2");
  EXPECT_EQ(Vtensor({"run", Path("model.onnx"), "--threads", "0"}).Describe(), "exit 2");
  EXPECT_EQ(Vtensor({"run", Path("model.onnx"), "--rtol", "abc"}).Describe(), "exit 2");
  EXPECT_EQ(Vtensor({"bench", Path("model.onnx"), "--runs", "0"}).Describe(), "exit 2");
}

}  // namespace
}  // namespace vt::testing
