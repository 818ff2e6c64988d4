#include "vtensor/passes/static_shapes.h"

#include <gtest/gtest.h>

#include "passes/test_model_builder.h"

namespace vt {
namespace {

// Y = Reshape(X, Concat(Shape(X)[0], -1)): a shape subgraph that only folds once X is static.
testing::OnnxBuilder ShapeChainModel() {
  testing::OnnxBuilder b;
  b.Input("X", {-1, 3, 4}).Output("Y", {-1, 12});
  b.Node("Shape", {"X"}, {"s"});
  b.InitI64("zero", {1}, {0});
  b.Node("Gather", {"s", "zero"}, {"n"});
  b.InitI64("minus1", {1}, {-1});
  auto& c = b.Node("Concat", {"n", "minus1"}, {"shape"});
  testing::OnnxBuilder::AttrI(c, "axis", 0);
  b.Node("Reshape", {"X", "shape"}, {"Y"});
  return b;
}

TEST(StaticShapesTest, ShapeSubgraphsFoldOnceInputsAreBound) {
  auto m = ShapeChainModel().Import();
  ASSERT_TRUE(m.ok());
  StaticShapeOptions o;
  o.input_shapes["X"] = {5, 3, 4};
  ASSERT_TRUE(SpecializeShapes(*m, o).ok());
  ASSERT_EQ(m->graph->nodes.size(), 1u);  // only the Reshape is left
  EXPECT_EQ(m->graph->nodes[0].op_type, "Reshape");
  ASSERT_TRUE(m->graph->initializers.count("shape"));
  const TensorSpec& y = m->graph->values.at("Y");
  ASSERT_TRUE(IsStaticTensor(y));
  EXPECT_EQ(StaticShape(y), (Shape{5, 12}));
  EXPECT_EQ(StaticShape(m->graph->outputs[0].spec), (Shape{5, 12}));
}

TEST(StaticShapesTest, UnboundDynamicInputIsAnError) {
  auto m = ShapeChainModel().Import();
  ASSERT_TRUE(m.ok());
  Status st = SpecializeShapes(*m, {});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("input 'X': dim 0 ('N') is dynamic"), std::string::npos) << st.message();
}

TEST(StaticShapesTest, ContradictingShapeAndUnknownInputAreErrors) {
  auto m = ShapeChainModel().Import();
  StaticShapeOptions o;
  o.input_shapes["X"] = {5, 4, 4};
  Status st = SpecializeShapes(*m, o);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("dim 1 is 3"), std::string::npos) << st.message();
  auto m2 = ShapeChainModel().Import();
  StaticShapeOptions o2;
  o2.input_shapes["nope"] = {1};
  EXPECT_FALSE(SpecializeShapes(*m2, o2).ok());
}

TEST(StaticShapesTest, NonConstantShapeInputIsAnErrorNamingTheNode) {
  testing::OnnxBuilder b;
  b.Input("X", {2, 3}).Input("S", {2}, onnx::TensorProto::INT64).Output("Y", {3, 2});
  b.Node("Reshape", {"X", "S"}, {"Y"}, "reshape_by_input");
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  Status st = SpecializeShapes(*m, {});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("reshape_by_input"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("decides the output shape"), std::string::npos);
}

TEST(StaticShapesTest, BoundInputValueSelectsAnIfBranch) {
  testing::OnnxBuilder b;
  b.Input("X", {2}).Input("sr", {}, onnx::TensorProto::INT64).Output("Y", {2});
  b.InitI64("k", {}, {16000});
  b.Node("Equal", {"sr", "k"}, {"c"});
  auto& n = b.Node("If", {"c"}, {"Y"});
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n.add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* g = a->mutable_g();
    g->set_name(branch);
    auto* node = g->add_node();
    node->set_op_type(std::string(branch) == "then_branch" ? "Relu" : "Neg");
    node->add_input("X");
    node->add_output(std::string(branch) + "_y");
    g->add_output()->set_name(std::string(branch) + "_y");
  }
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  StaticShapeOptions o;
  o.input_values["sr"] = {16000};
  ASSERT_TRUE(SpecializeShapes(*m, o).ok());
  bool relu = false;
  for (const auto& node : m->graph->nodes) {
    EXPECT_NE(node.op_type, "If");
    relu = relu || node.op_type == "Relu";
  }
  EXPECT_TRUE(relu);
  EXPECT_EQ(m->graph->RealInputs().size(), 1u);  // sr is now a constant
}

TEST(StaticShapesTest, DataDependentShapesAreUnimplemented) {
  testing::OnnxBuilder b;
  b.Input("X", {4}).Output("Y", {1, -1}, onnx::TensorProto::INT64);
  b.Node("NonZero", {"X"}, {"Y"}, "nz");
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  Status st = SpecializeShapes(*m, {});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_NE(st.message().find("'nz'"), std::string::npos);
}

}  // namespace
}  // namespace vt
