#include <gtest/gtest.h>

#include "passes/test_model_builder.h"
#include "vtensor/forms/weight_use.h"
#include "vtensor/passes/pass.h"

namespace vt {
namespace {

using testing::OnnxBuilder;

const Node& NodeWithOutput(const Graph& g, const std::string& out) {
  for (const Node& n : g.nodes)
    if (!n.outputs.empty() && n.outputs[0] == out) return n;
  ADD_FAILURE() << "no node writes " << out;
  return g.nodes.front();
}

// Imports `b` as a session does (no ONNX shape inference), runs gemm-shapes and returns the
// model and the pass's count.
std::pair<Model, size_t> RunPass(OnnxBuilder& b) {
  ImportOptions io;
  io.infer_shapes = false;
  auto m = ImportModel(b.proto(), "test.onnx", io);
  EXPECT_TRUE(m.ok()) << m.status().message();
  auto pass = MakeGemmShapesPass();
  EXPECT_TRUE(pass->Run(*m, {}).ok());
  EXPECT_FALSE(pass->relies_on_dim_params());
  return {std::move(*m), pass->rewrites()};
}

TEST(GemmShapesTest, RecordsTheRowsOfAChainOfMatMuls) {
  OnnxBuilder b(13);
  b.Input("x", {2, 1, 16});
  b.RandomInit("w0", {16, 8}, 1).RandomInit("w1", {8, 4}, 2);
  b.Node("MatMul", {"x", "w0"}, {"h"});
  b.Node("Relu", {"h"}, {"r"});
  b.Node("MatMul", {"r", "w1"}, {"y"});
  b.Output("y", {2, 1, 4});
  auto [m, recorded] = RunPass(b);
  EXPECT_EQ(recorded, 1u);  // x's type was known already
  const Graph& g = *m.graph;
  ASSERT_TRUE(g.values.count("r"));
  EXPECT_EQ(g.values.at("r").type().ToString(), "tensor(float32)[2,1,8]");
  EXPECT_EQ(StaticGemmRows(g, NodeWithOutput(g, "h")), 2);  // batch axes fold into M
  EXPECT_EQ(StaticGemmRows(g, NodeWithOutput(g, "y")), 2);
}

TEST(GemmShapesTest, SymbolicDimsAndNonConstantWeightsAreLeftUnknown) {
  OnnxBuilder b(13);
  b.Input("x", {-1, 16});
  b.Input("wx", {8, 4});
  b.RandomInit("w0", {16, 8}, 1);
  b.Node("MatMul", {"x", "w0"}, {"h"});
  b.Node("Relu", {"h"}, {"r"});
  b.Node("MatMul", {"r", "wx"}, {"y"});
  b.Output("y", {-1, 4});
  auto [m, recorded] = RunPass(b);
  EXPECT_EQ(recorded, 0u);
  const Graph& g = *m.graph;
  EXPECT_EQ(StaticGemmRows(g, NodeWithOutput(g, "h")), 0);
  EXPECT_EQ(StaticGemmRows(g, NodeWithOutput(g, "y")), 0);
}

TEST(GemmShapesTest, GemmRowsFollowTransA) {
  OnnxBuilder b(13);
  b.Input("x", {16, 3});
  b.RandomInit("w", {4, 16}, 1);
  auto& n = b.Node("Gemm", {"x", "w"}, {"y"});
  OnnxBuilder::AttrI(n, "transA", 1);
  OnnxBuilder::AttrI(n, "transB", 1);
  b.Output("y", {3, 4});
  auto [m, recorded] = RunPass(b);
  EXPECT_EQ(recorded, 0u);
  EXPECT_EQ(StaticGemmRows(*m.graph, NodeWithOutput(*m.graph, "y")), 3);
}

}  // namespace
}  // namespace vt
