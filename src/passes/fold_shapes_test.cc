#include <gtest/gtest.h>

#include "passes/fusion_test_util.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

using testing::FuseAndCompare;
using testing::OnnxBuilder;
using testing::RandomTensor;

// x [N, 4, 6] reshaped to [N, 24] through the shape subgraph exporters write:
// Concat(Unsqueeze(Gather(Shape(x), 0)), [24]).
OnnxBuilder FlattenModel() {
  OnnxBuilder b(17);
  b.Input("x", {-1, 4, 6});
  b.InitI64("i0", {}, {0}).InitI64("ax0", {1}, {0}).InitI64("tail", {1}, {24});
  b.Node("Shape", {"x"}, {"shape"});
  OnnxBuilder::AttrI(b.Node("Gather", {"shape", "i0"}, {"n"}), "axis", 0);
  b.Node("Unsqueeze", {"n", "ax0"}, {"n1"});
  OnnxBuilder::AttrI(b.Node("Concat", {"n1", "tail"}, {"target"}), "axis", 0);
  b.Node("Reshape", {"x", "target"}, {"y"});
  b.Output("y", {-1, 24});
  return b;
}

TEST(FoldShapesTest, ShapeSubgraphOfAReshapeBecomesAConstant) {
  for (int64_t n : {1, 3}) {
    auto r = FuseAndCompare(FlattenModel(), FoldShapes, {Value(RandomTensor({n, 4, 6}, 1))});
    EXPECT_GE(r.rewrites, 1u);
    EXPECT_EQ(r.ops, (std::map<std::string, int>{{"Reshape", 1}}));
  }
}

// A shape subgraph whose value depends on data (NonZero) cannot be folded.
TEST(FoldShapesTest, DataDependentShapeIsKept) {
  OnnxBuilder b(17);
  b.Input("x", {6});
  b.InitI64("i1", {}, {1});
  b.Node("NonZero", {"x"}, {"nz"});
  b.Node("Shape", {"nz"}, {"shape"});
  OnnxBuilder::AttrI(b.Node("Gather", {"shape", "i1"}, {"count"}), "axis", 0);
  b.Output("count", {}, onnx::TensorProto::INT64);
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(FoldShapes(*m->graph), 0u);
  EXPECT_EQ(m->graph->nodes.size(), 3u);
}

}  // namespace
}  // namespace vt
