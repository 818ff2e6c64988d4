// FuseResizeAdd (passes/fusion.h): which Adds fold into their Resize, and that the fused graph
// gives bit-identical results; the symbolic shape rule of Resize it consults.
#include <gtest/gtest.h>

#include "passes/fusion_test_util.h"
#include "passes/symbolic_shapes.h"
#include "vtensor/passes/fusion.h"
#include "vtensor/passes/static_shapes.h"

namespace vt {
namespace {

using testing::FuseAndCompare;
using testing::OnnxBuilder;
using testing::RandomTensor;

constexpr int kFloat = onnx::TensorProto::FLOAT;

// out = Add(Resize(x, scales), y) (operands swapped with `y_first`); x [1, 2, 4, 4] by 2 in H
// and W unless `x_dims` / `y_dims` say otherwise (-1: the symbolic dim "N").
OnnxBuilder ResizeAddModel(const std::vector<int64_t>& x_dims = {1, 2, 4, 4},
                           const std::vector<int64_t>& y_dims = {1, 2, 8, 8}, bool y_first = false,
                           int y_elem = kFloat) {
  OnnxBuilder b(13);
  b.Input("x", x_dims).Input("y", y_dims, y_elem);
  b.Init("roi", {0}, {}).Init("scales", {4}, {1, 1, 2, 2});
  auto& r = b.Node("Resize", {"x", "roi", "scales"}, {"r"});
  OnnxBuilder::AttrS(r, "mode", "nearest");
  b.Node("Add", y_first ? std::vector<std::string>{"y", "r"} : std::vector<std::string>{"r", "y"},
         {"out"});
  b.Output("out", y_dims, y_elem);
  return b;
}

const Node* Only(const Graph& g, const std::string& op) {
  const Node* found = nullptr;
  for (const Node& n : g.nodes)
    if (n.op_type == op) found = found == nullptr ? &n : nullptr;
  return found;
}

TEST(FuseResizeAddTest, AddFoldsIntoTheResize) {
  const std::vector<Value> in = {Value(RandomTensor({1, 2, 4, 4}, 1)), Value(RandomTensor({1, 2, 8, 8}, 2))};
  for (bool y_first : {false, true}) {
    auto r = FuseAndCompare(ResizeAddModel({1, 2, 4, 4}, {1, 2, 8, 8}, y_first), FuseResizeAdd, in, 0, 0);
    EXPECT_EQ(r.rewrites, 1u);
    EXPECT_EQ(r.ops, (std::map<std::string, int>{{"Resize", 1}}));
  }
  auto m = ResizeAddModel().Import();
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(FuseResizeAdd(*m->graph), 1u);
  const Node* n = Only(*m->graph, "Resize");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->inputs, (std::vector<std::string>{"x", "roi", "scales", "", "y"}));
  EXPECT_EQ(n->outputs, (std::vector<std::string>{"out"}));
  EXPECT_EQ(n->GetInt(kResizeAddAttr, 0), 1);
}

// Dims unknown when the session fuses (symbolic H, W): fused, and the kernel decides at run
// time, also for an addend that broadcasts in that run.
TEST(FuseResizeAddTest, UnknownShapesFuseAndRunAsWritten) {
  auto b = ResizeAddModel({1, 2, -1, -1}, {1, 2, -1, -1});
  const Value x(RandomTensor({1, 2, 3, 5}, 1));
  auto r = FuseAndCompare(b, FuseResizeAdd, {x, Value(RandomTensor({1, 2, 6, 10}, 2))}, 0, 0);
  EXPECT_EQ(r.rewrites, 1u);
  r = FuseAndCompare(b, FuseResizeAdd, {x, Value(RandomTensor({1, 2, 1, 1}, 3))}, 0, 0);
  EXPECT_EQ(r.rewrites, 1u);
}

// The fused node stands where the Add stood: after the addend's producer.
TEST(FuseResizeAddTest, FusedNodeTakesTheAddsPlace) {
  OnnxBuilder b(13);
  b.Input("x", {1, 2, 4, 4}).Input("y0", {1, 2, 8, 8});
  b.Init("roi", {0}, {}).Init("scales", {4}, {1, 1, 2, 2});
  b.Node("Resize", {"x", "roi", "scales"}, {"r"});
  b.Node("Neg", {"y0"}, {"y"});
  b.Node("Add", {"r", "y"}, {"out"});
  b.Output("out", {1, 2, 8, 8});
  const std::vector<Value> in = {Value(RandomTensor({1, 2, 4, 4}, 1)), Value(RandomTensor({1, 2, 8, 8}, 2))};
  EXPECT_EQ(FuseAndCompare(b, FuseResizeAdd, in, 0, 0).rewrites, 1u);
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  FuseResizeAdd(*m->graph);
  ASSERT_EQ(m->graph->nodes.size(), 2u);
  EXPECT_EQ(m->graph->nodes[0].op_type, "Neg");
  EXPECT_EQ(m->graph->nodes[1].op_type, "Resize");
}

TEST(FuseResizeAddTest, UpsampleTakesTheAddendAtIndexTwo) {
  OnnxBuilder b(9);
  b.Input("x", {1, 2, 4, 4}).Input("y", {1, 2, 8, 8});
  b.Init("scales", {4}, {1, 1, 2, 2});
  b.Node("Upsample", {"x", "scales"}, {"r"});
  b.Node("Add", {"r", "y"}, {"out"});
  b.Output("out", {1, 2, 8, 8});
  const std::vector<Value> in = {Value(RandomTensor({1, 2, 4, 4}, 1)), Value(RandomTensor({1, 2, 8, 8}, 2))};
  EXPECT_EQ(FuseAndCompare(b, FuseResizeAdd, in, 0, 0).rewrites, 1u);
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  FuseResizeAdd(*m->graph);
  EXPECT_EQ(m->graph->nodes[0].inputs, (std::vector<std::string>{"x", "scales", "y"}));
}

size_t FuseImported(const OnnxBuilder& b) {
  auto m = b.Import();
  EXPECT_TRUE(m.ok());
  return m.ok() ? FuseResizeAdd(*m->graph) : 0;
}

TEST(FuseResizeAddTest, ResizeOutputReadElsewhereIsKept) {
  OnnxBuilder two = ResizeAddModel();
  two.Node("Neg", {"r"}, {"nr"});
  two.Output("nr", {1, 2, 8, 8});
  EXPECT_EQ(FuseImported(two), 0u) << "a second consumer";
  OnnxBuilder out = ResizeAddModel();
  out.Output("r", {1, 2, 8, 8});
  EXPECT_EQ(FuseImported(out), 0u) << "a graph output";
}

// Stated shapes that differ or broadcast, and element types other than f32 on either side.
TEST(FuseResizeAddTest, KnownMismatchesAreKept) {
  EXPECT_EQ(FuseImported(ResizeAddModel({1, 2, 4, 4}, {1, 2, 8, 7})), 0u) << "dims differ";
  EXPECT_EQ(FuseImported(ResizeAddModel({1, 2, 4, 4}, {1, 2, 1, 1})), 0u) << "broadcast";
  EXPECT_EQ(FuseImported(ResizeAddModel({1, 2, 4, 4}, {2, 8, 8})), 0u) << "ranks differ";
  EXPECT_EQ(FuseImported(ResizeAddModel({1, 2, 4, 4}, {1, 2, 8, 8}, false, onnx::TensorProto::DOUBLE)), 0u)
      << "element types differ";
  OnnxBuilder f16(13);
  f16.Input("x", {1, 2, 4, 4}, onnx::TensorProto::FLOAT16).Input("y", {1, 2, 8, 8}, onnx::TensorProto::FLOAT16);
  f16.Init("roi", {0}, {}).Init("scales", {4}, {1, 1, 2, 2});
  f16.Node("Resize", {"x", "roi", "scales"}, {"r"});
  f16.Node("Add", {"r", "y"}, {"out"});
  f16.Output("out", {1, 2, 8, 8}, onnx::TensorProto::FLOAT16);
  EXPECT_EQ(FuseImported(f16), 0u) << "float16: no fused kernel path";
}

// The symbolic rule alone (no value types from ONNX shape inference) shows the broadcast.
TEST(FuseResizeAddTest, SymbolicShapesShowTheBroadcast) {
  auto m = ResizeAddModel({1, 2, 4, 4}, {1, 2, 1, 1}).Import();
  ASSERT_TRUE(m.ok());
  m->graph->values.erase("r");
  m->graph->values.erase("out");
  EXPECT_EQ(FuseResizeAdd(*m->graph), 0u);
}

TEST(FuseResizeAddTest, AddendThatIsAResizeInputIsKept) {
  OnnxBuilder b(13);
  b.Input("x", {1, 2, 4, 4});
  b.Init("roi", {0}, {}).Init("scales", {4}, {1, 1, 1, 1});
  b.Node("Resize", {"x", "roi", "scales"}, {"r"});
  b.Node("Add", {"r", "x"}, {"out"});
  b.Output("out", {1, 2, 4, 4});
  EXPECT_EQ(FuseImported(b), 0u);
}

// Static shape specialization (the exporters' pass) learns the fused node's output type by
// running its kernel, as for any node.
TEST(FuseResizeAddTest, StaticShapesLearnTheFusedOutput) {
  auto m = ResizeAddModel({1, 2, -1, -1}, {1, 2, -1, -1}).Import();
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(FuseResizeAdd(*m->graph), 1u);
  StaticShapeOptions opts;
  opts.input_shapes = {{"x", {1, 2, 3, 5}}, {"y", {1, 2, 6, 10}}};
  const Status st = SpecializeShapes(*m, opts);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(IsStaticTensor(m->graph->values.at("out")));
  EXPECT_EQ(StaticShape(m->graph->values.at("out")), (Shape{1, 2, 6, 10}));
}

TEST(SymbolicShapesTest, ResizeByConstantScalesOrSizes) {
  OnnxBuilder b(13);
  b.Input("x", {-1, 3, 10, 7});
  b.Init("roi", {0}, {}).Init("scales", {4}, {1, 1, 2, 1.5}).Init("none", {0}, {});
  b.InitI64("sizes", {4}, {2, 3, 5, 5});
  b.Node("Resize", {"x", "roi", "scales"}, {"a"});
  b.Node("Resize", {"x", "roi", "none", "sizes"}, {"b"});
  b.Output("a", {-1, 3, 20, 10}).Output("b", {2, 3, 5, 5});
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  SymbolicShapes ss(*m->graph);
  EXPECT_EQ(ss.ToString("a"), "[N,3,20,10]");
  EXPECT_EQ(ss.ToString("b"), "[2,3,5,5]");
}

}  // namespace
}  // namespace vt
