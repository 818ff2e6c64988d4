#include <gtest/gtest.h>

#include <limits>

#include "passes/fusion_test_util.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

using testing::FuseAndCompare;
using testing::OnnxBuilder;
using testing::RandomTensor;

constexpr int64_t kHeads = 3, kSeq = 5, kDim = 18;

// Llama's apply_rotary_pos_emb as exported: x * cos + rotate_half(x) * sin, rotate_half(x) =
// Concat(Neg(x[..., h:]), x[..., :h]) with two Slices; cos / sin [1, 1, S, D] are inputs (in
// the model they are gathered by position_ids). `axis` is the Slices' axis, `half` their
// split point.
// `x_seq` is x's sequence dim (1 with tables of kSeq rows widens x), `elem` the element type.
OnnxBuilder Rotary(int64_t axis = -1, int64_t half = kDim / 2, int64_t x_seq = kSeq,
                   int elem = onnx::TensorProto::FLOAT) {
  OnnxBuilder b(17);
  b.Input("x", {1, kHeads, x_seq, kDim}, elem);
  b.Input("cos", {1, 1, kSeq, kDim}, elem);
  b.Input("sin", {1, 1, kSeq, kDim}, elem);
  b.InitI64("h", {1}, {half}).InitI64("zero", {1}, {0});
  b.InitI64("end", {1}, {std::numeric_limits<int64_t>::max()}).InitI64("axis", {1}, {axis});
  b.Node("Slice", {"x", "h", "end", "axis"}, {"x2"});
  b.Node("Neg", {"x2"}, {"nx2"});
  b.Node("Slice", {"x", "zero", "h", "axis"}, {"x1"});
  OnnxBuilder::AttrI(b.Node("Concat", {"nx2", "x1"}, {"rot"}), "axis", axis);
  b.Node("Mul", {"x", "cos"}, {"xc"});
  b.Node("Mul", {"rot", "sin"}, {"rs"});
  b.Node("Add", {"xc", "rs"}, {"y"});
  b.Output("y", {1, kHeads, kSeq, kDim}, elem);
  return b;
}

std::vector<Value> Inputs() {
  return {Value(RandomTensor({1, kHeads, kSeq, kDim}, 1, -3.0f, 3.0f)),
          Value(RandomTensor({1, 1, kSeq, kDim}, 2)), Value(RandomTensor({1, 1, kSeq, kDim}, 3))};
}

TEST(FuseRotaryTest, RotateHalfFormBecomesRotaryEmbedding) {
  auto r = FuseAndCompare(Rotary(), FuseRotary, Inputs(), 1e-6f, 1e-6f);
  EXPECT_EQ(r.rewrites, 1u);
  EXPECT_EQ(r.ops, (std::map<std::string, int>{{"ai.vtensor:RotaryEmbedding", 1}}));
}

TEST(FuseRotaryTest, OtherAxisOrSplitIsLeftAlone) {
  // Slices and Concat over the sequence axis (2 splits 5 rows as 2 + 3).
  EXPECT_EQ(FuseAndCompare(Rotary(2, 2), FuseRotary, Inputs()).rewrites, 0u);
  // Not half of the last axis.
  auto r = FuseAndCompare(Rotary(-1, 8), FuseRotary, Inputs());
  EXPECT_EQ(r.rewrites, 0u);
  EXPECT_EQ(r.ops["Neg"], 1);
}

TEST(FuseRotaryTest, WideningTablesOrFloat16AreLeftAlone) {
  for (const auto& b : {Rotary(-1, kDim / 2, 1), Rotary(-1, kDim / 2, kSeq, onnx::TensorProto::FLOAT16)}) {
    auto m = b.Import();
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(FuseRotary(*m->graph), 0u);
  }
}

}  // namespace
}  // namespace vt
