#include <gtest/gtest.h>

#include <cstring>

#include "passes/test_model_builder.h"
#include "vtensor/graph/tensor_meta.h"
#include "vtensor/passes/pass.h"
#include "vtensor/exec/evaluate.h"

namespace vt {
namespace {

// Y[2,3] = MatMul(X[2,4], Transpose(W[3,4])) (+ Gemm variant: Gemm(X, Transpose(W))).
testing::OnnxBuilder TransposedWeightModel(const std::string& consumer) {
  testing::OnnxBuilder b;
  b.Input("X", {2, 4}).Output("Y", {2, 3}).RandomInit("W", {3, 4}, 7);
  auto& t = b.Node("Transpose", {"W"}, {"Wt"}, "transpose_w");
  testing::OnnxBuilder::AttrInts(t, "perm", {1, 0});
  b.Node(consumer, {"X", "Wt"}, {"Y"}, "mm");
  return b;
}

std::vector<float> RunOnce(const Model& m) {
  // EvaluateModel runs the graph exactly as the passes left it (no folding).
  Tensor x = Tensor::Empty(DType::kFloat32, {2, 4});
  for (int i = 0; i < 8; ++i) x.mutable_data<float>()[i] = 0.25f * static_cast<float>(i) - 1.0f;
  auto out = EvaluateModel(m, {Value(x)});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return {};
  Tensor y = (*out)[0].tensor().Contiguous();
  return std::vector<float>(y.data<float>(), y.data<float>() + y.numel());
}

bool HasOp(const Model& m, const std::string& op) {
  for (const auto& n : m.graph->nodes)
    if (n.op_type == op) return true;
  return false;
}

TEST(TransposeEliminationTest, MatMulWeightBecomesAStrideSwappedViewAndOutputsAreUnchanged) {
  auto builder = TransposedWeightModel("MatMul");
  auto before = builder.Import();
  auto after = builder.Import();
  ASSERT_TRUE(before.ok() && after.ok());
  ASSERT_TRUE(RunPasses(*after, "x86_64-avx512").ok());
  EXPECT_FALSE(HasOp(*after, "Transpose"));
  const Graph& g = *after->graph;
  ASSERT_TRUE(g.initializers.count("Wt"));
  const TensorSpec& spec = g.values.at("Wt");
  auto l = TensorLayout(spec);
  ASSERT_TRUE(l.ok() && l->has_value());
  EXPECT_EQ((*l)->shape(), (Shape{4, 3}));
  EXPECT_EQ((*l)->strides(), (std::vector<int64_t>{1, 4}));  // W[3,4] read column-wise
  EXPECT_EQ(TensorLayoutOrigin(spec), "transpose-elimination");
  EXPECT_EQ(TensorAliasOf(spec), "W");
  EXPECT_EQ(spec.identity(), "W");
  // A view, not a copy: same storage as the original weight.
  auto orig = before->graph->initializers.at("W");
  EXPECT_EQ(std::memcmp(g.initializers.at("Wt").storage()->data(), orig.storage()->data(), 48), 0);

  std::vector<float> y0 = RunOnce(*before), y1 = RunOnce(*after);
  ASSERT_EQ(y0.size(), 6u);
  EXPECT_EQ(y0, y1);  // bit-identical
}

TEST(TransposeEliminationTest, GemmAbsorbsTheTransposeIntoItsFlag) {
  auto builder = TransposedWeightModel("Gemm");
  auto before = builder.Import();
  auto after = builder.Import();
  ASSERT_TRUE(before.ok() && after.ok());
  ASSERT_TRUE(RunPasses(*after, "").ok());  // no target: flags need no layout
  EXPECT_FALSE(HasOp(*after, "Transpose"));
  const Node& mm = after->graph->nodes[0];
  EXPECT_EQ(mm.inputs[1], "W");
  EXPECT_EQ(mm.GetInt("transB", 0), 1);
  EXPECT_FALSE(HasTensorLayout(after->graph->values.at("W")));
  EXPECT_EQ(RunOnce(*before), RunOnce(*after));
}

TEST(TransposeEliminationTest, WithoutTargetMatMulWeightIsFoldedWithoutALayout) {
  auto m = TransposedWeightModel("MatMul").Import();
  ASSERT_TRUE(m.ok());
  PassContext none;
  ASSERT_TRUE(MakeTransposeEliminationPass()->Run(*m, none).ok());
  EXPECT_TRUE(HasOp(*m, "Transpose"));  // a view would need a layout: none is invented
  ASSERT_TRUE(RunPasses(*m, "").ok());
  EXPECT_FALSE(HasOp(*m, "Transpose"));  // folded into a plain transposed initializer
  EXPECT_TRUE(m->graph->initializers.at("Wt").is_contiguous());
  for (const auto& [name, spec] : m->graph->values) EXPECT_FALSE(HasTensorLayout(spec)) << name;
}

TEST(TransposeEliminationTest, TransposeWithAnotherConsumerIsKept) {
  auto b = TransposedWeightModel("MatMul");
  b.Node("Relu", {"Wt"}, {"R"});
  b.Output("R", {4, 3});
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  PassContext ctx;
  ctx.target = *FindTarget("x86_64-avx2");
  ASSERT_TRUE(MakeTransposeEliminationPass()->Run(*m, ctx).ok());
  EXPECT_TRUE(HasOp(*m, "Transpose"));
}

TEST(TransposeEliminationTest, ConstantNodeWeightIsPromotedAndViewed) {
  testing::OnnxBuilder b;
  b.Input("X", {2, 2}).Output("Y", {2, 2});
  auto& c = b.Node("Constant", {}, {"W"});
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(2);
  a->mutable_t()->add_dims(2);
  for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) a->mutable_t()->add_float_data(v);
  b.Node("Transpose", {"W"}, {"Wt"});
  b.Node("MatMul", {"X", "Wt"}, {"Y"});
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(RunPasses(*m, "x86_64-baseline").ok());
  EXPECT_FALSE(HasOp(*m, "Transpose"));
  EXPECT_FALSE(HasOp(*m, "Constant"));
  EXPECT_EQ(TensorAliasOf(m->graph->values.at("Wt")), "W");
}

}  // namespace
}  // namespace vt
