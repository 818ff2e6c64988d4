#include <gtest/gtest.h>

#include "passes/fusion_test_util.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

using testing::FuseAndCompare;
using testing::OnnxBuilder;
using testing::RandomTensor;

constexpr int64_t kK = 19, kN = 37;

// x [2, 5, K] @ W [K, N] + b [N], then Gelu-20 (what fuse-gelu leaves) when `gelu`. With
// `weight_is_input` W is a graph input instead of an initializer.
OnnxBuilder LinearModel(bool gelu, bool weight_is_input = false) {
  OnnxBuilder b(20);
  b.Input("x", {2, 5, kK});
  if (weight_is_input) b.Input("w", {kK, kN});
  else b.RandomInit("w", {kK, kN}, 11);
  b.RandomInit("b", {kN}, 12);
  b.Node("MatMul", {"x", "w"}, {"mm"});
  b.Node("Add", {"b", "mm"}, {gelu ? "z" : "y"});
  if (gelu) b.Node("Gelu", {"z"}, {"y"});
  b.Output("y", {2, 5, kN});
  return b;
}

TEST(FuseMatMulBiasTest, MatMulBiasAndGeluBecomeDense) {
  const std::vector<Value> in = {Value(RandomTensor({2, 5, kK}, 1))};
  for (bool gelu : {false, true}) {
    auto r = FuseAndCompare(LinearModel(gelu), FuseMatMulBias, in, 1e-5f, 1e-5f);
    EXPECT_EQ(r.rewrites, 1u);
    EXPECT_EQ(r.ops, (std::map<std::string, int>{{"ai.vtensor:Dense", 1}}));
  }
}

TEST(FuseMatMulBiasTest, NonConstantWeightIsLeftAlone) {
  const std::vector<Value> in = {Value(RandomTensor({2, 5, kK}, 1)),
                                 Value(RandomTensor({kK, kN}, 2))};
  auto r = FuseAndCompare(LinearModel(true, true), FuseMatMulBias, in);
  EXPECT_EQ(r.rewrites, 0u);
  EXPECT_EQ(r.ops["MatMul"], 1);
}

// Llama's MLP gate: silu(x @ Wg) * (x @ Wu) with SiLU as x * Sigmoid(x); `sigmoid_out` makes
// the Sigmoid's value a graph output too.
OnnxBuilder SwiGluModel(bool sigmoid_out) {
  OnnxBuilder b(17);
  b.Input("x", {3, kK});
  b.RandomInit("wg", {kK, kN}, 13).RandomInit("wu", {kK, kN}, 14);
  b.Node("MatMul", {"x", "wg"}, {"g"});
  b.Node("MatMul", {"x", "wu"}, {"u"});
  b.Node("Sigmoid", {"g"}, {"s"});
  b.Node("Mul", {"g", "s"}, {"silu"});
  b.Node("Mul", {"silu", "u"}, {"y"});
  b.Output("y", {3, kN});
  if (sigmoid_out) b.Output("s", {3, kN});
  return b;
}

TEST(FuseMatMulBiasTest, SwiGluBecomesDenseWithSiluAndMultiplier) {
  const std::vector<Value> in = {Value(RandomTensor({3, kK}, 3, -2.0f, 2.0f))};
  auto r = FuseAndCompare(SwiGluModel(false), FuseMatMulBias, in, 1e-5f, 1e-5f);
  EXPECT_EQ(r.rewrites, 1u);
  EXPECT_EQ(r.ops, (std::map<std::string, int>{{"MatMul", 1}, {"ai.vtensor:Dense", 1}}));
  auto kept = FuseAndCompare(SwiGluModel(true), FuseMatMulBias, in);
  EXPECT_EQ(kept.rewrites, 0u);
  EXPECT_EQ(kept.ops["Sigmoid"], 1);
}

// SiLU / SwiGLU whose input is not a MatMul by a constant: QuickGelu(alpha 1) / Activation.
TEST(FuseMatMulBiasTest, SiluOfOtherValuesBecomesQuickGeluOrActivation) {
  for (bool gated : {false, true}) {
    OnnxBuilder b(17);
    b.Input("x", {4, kN}).Input("u", {4, kN});
    b.Node("Sigmoid", {"x"}, {"s"});
    b.Node("Mul", {"s", "x"}, {gated ? "silu" : "y"});
    if (gated) b.Node("Mul", {"u", "silu"}, {"y"});
    b.Output("y", {4, kN});
    auto r = FuseAndCompare(b, FuseMatMulBias,
                            {Value(RandomTensor({4, kN}, 4, -9.0f, 9.0f)), Value(RandomTensor({4, kN}, 5))},
                            1e-6f, 1e-5f);
    EXPECT_EQ(r.rewrites, 1u);
    EXPECT_EQ(r.ops, (std::map<std::string, int>{
                         {gated ? "ai.vtensor:Activation" : "com.microsoft:QuickGelu", 1}}));
  }
  // Activation is f32 only: a float16 SwiGLU stays (a float16 SiLU becomes QuickGelu).
  for (bool gated : {false, true}) {
    OnnxBuilder b(17);
    b.Input("x", {4, kN}, onnx::TensorProto::FLOAT16).Input("u", {4, kN}, onnx::TensorProto::FLOAT16);
    b.Node("Sigmoid", {"x"}, {"s"});
    b.Node("Mul", {"s", "x"}, {gated ? "silu" : "y"});
    if (gated) b.Node("Mul", {"u", "silu"}, {"y"});
    b.Output("y", {4, kN}, onnx::TensorProto::FLOAT16);
    auto m = b.Import();
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(FuseMatMulBias(*m->graph), gated ? 0u : 1u);
  }
}

}  // namespace
}  // namespace vt
