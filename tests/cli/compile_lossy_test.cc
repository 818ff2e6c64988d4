// `vtensor compile --profile compact`: a warning names the lossy forms it stored, and with
// `--data DIR` the largest difference the compiled model's outputs show from the source model's
// on that test data; a lossless compile measures a difference of 0 and warns of nothing.
#include <filesystem>

#include "cli_test_base.h"
#include "model_builder.h"

namespace vt::testing {
namespace {

class CompileLossy : public CliTest {
 protected:
  // MatMulModel (its weight's 17 levels per column: q4_0's 16 levels per block of 32 cannot
  // hold them, so the compact profile's int4 form is lossy); DIR/data/input_0.pb holds x.
  // `with_bias`: y = MatMul(x, w) + b, which the session fuses into one Dense node.
  void WriteModelAndData(bool with_bias = false) {
    onnx::ModelProto m = MatMulModel();
    auto* g = m.mutable_graph();
    if (with_bias) {
      g->mutable_node(0)->set_output(0, "t");
      auto* add = g->add_node();
      add->set_op_type("Add");
      add->add_input("t");
      add->add_input("b");
      add->add_output("y");
      *g->add_initializer() = FloatTensor("b", {128}, std::vector<float>(128, 0.5f));
    }
    WriteModel(m);
    std::vector<float> x(4 * 64);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
    std::filesystem::create_directories(Path("data"));
    WriteProto(Path("data/input_0.pb"), FloatTensor("x", {4, 64}, x));
  }
  ProcessResult Compile(const std::vector<std::string>& extra) {
    std::vector<std::string> args{"compile", Path("model.onnx"), "-o", Path("out.onnx"),
                                  "--no-progress"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Vtensor(args);
  }
  // The max abs difference `compile --data` printed for output y (-1 when absent).
  static double PrintedDifference(const std::string& output) {
    const std::string key = "y: max abs difference from the source model on ";
    size_t at = output.find(key);
    if (at == std::string::npos) return -1;
    size_t colon = output.find(": ", at + key.size());
    return colon == std::string::npos ? -1 : std::stod(output.substr(colon + 2));
  }
};

TEST_F(CompileLossy, CompactWarnsWithTheMeasuredDifference) {
  WriteModelAndData();
  auto r = Compile({"--profile", "compact", "--data", Path("data")});
  EXPECT_EXIT_WITH(r, 0, "vtensor: warning: " + Path("out.onnx") +
                             ": 1 of 1 compiled tensors are lossy (vt.q4_0_gemm_b 1)");
  EXPECT_NE(r.output.find("max abs difference on " + Path("data") + ": y "), std::string::npos)
      << r.output;
  const double d = PrintedDifference(r.output);
  EXPECT_GT(d, 0.01) << r.output;  // int4 blocks over 17 levels: a visible change
  EXPECT_LT(d, 50.0) << r.output;  // but an approximation of the same product
}

// The fused Dense node has no int4 path: under compact its weight stays f32 panels (cached),
// nothing lossy is stored, and the outputs equal the source model's.
TEST_F(CompileLossy, FusedDenseStoresNoLossyForm) {
  WriteModelAndData(/*with_bias=*/true);
  auto r = Compile({"--profile", "compact", "--data", Path("data")});
  EXPECT_EQ(r.Describe(), "exit 0") << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  EXPECT_EQ(PrintedDifference(r.output), 0.0) << r.output;
  auto run = Vtensor({"run", Path("out.onnx"), "--profile", "compact", "--data", Path("data"),
                      "-v"});
  EXPECT_EQ(run.Describe(), "exit 0") << run.output;
  EXPECT_NE(run.output.find("ai.vtensor.Dense"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("HIT"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("q4_0"), std::string::npos) << run.output;
}

TEST_F(CompileLossy, CompactWithoutDataSuggestsIt) {
  WriteModelAndData();
  auto r = Compile({"--profile", "compact"});
  EXPECT_EXIT_WITH(r, 0, "are lossy (vt.q4_0_gemm_b 1)");
  EXPECT_NE(r.output.find("`vtensor compile --data DIR` measures the difference"),
            std::string::npos)
      << r.output;
}

TEST_F(CompileLossy, QuietLeavesTheWarningOut) {
  WriteModelAndData();
  auto r = Compile({"--profile", "compact", "--quiet"});
  EXPECT_EQ(r.Describe(), "exit 0") << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
}

TEST_F(CompileLossy, ExactMeasuresZeroAndDoesNotWarn) {
  WriteModelAndData();
  auto r = Compile({"--data", Path("data")});
  EXPECT_EQ(r.Describe(), "exit 0") << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  EXPECT_EQ(PrintedDifference(r.output), 0.0) << r.output;
}

TEST_F(CompileLossy, MissingDataDirectoryFailsBeforeAnyWork) {
  WriteModelAndData();
  auto r = Compile({"--profile", "compact", "--data", Path("nodata")});
  EXPECT_EXIT_WITH(r, 2, "error: compile --data '" + Path("nodata") + "': not a directory");
  EXPECT_FALSE(std::filesystem::exists(Path("out.onnx")));
}

TEST_F(CompileLossy, MissingInputFileIsAnErrorNamingIt) {
  WriteModelAndData();
  std::filesystem::create_directories(Path("empty"));
  auto r = Compile({"--profile", "compact", "--data", Path("empty")});
  EXPECT_EXIT_WITH(r, 2, "error: compile --data " + Path("empty") + ": ");
  EXPECT_NE(r.output.find(Path("empty/input_0.pb")), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vt::testing
