#include <gtest/gtest.h>

#include "passes/fusion_test_util.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

using testing::FuseAndCompare;
using testing::OnnxBuilder;
using testing::RandomTensor;

constexpr int64_t kN = 33;

struct LnOptions {
  int64_t axis = -1;           // of both ReduceMeans
  bool eps_is_input = false;   // epsilon fed as a graph input (not a constant)
  bool extra_reader = false;   // the centred value is also a graph output
  Shape gamma = {kN};          // the scale's shape
};

// The LayerNorm decomposition of torch.onnx.export at opset 14: ReduceMean / Sub / Pow /
// ReduceMean / Add / Sqrt / Div / Mul scale / Add bias over the last axis of x [2, 5, 33].
OnnxBuilder LayerNormModel(const LnOptions& o = {}) {
  OnnxBuilder b(14);
  b.Input("x", {2, 5, kN});
  if (o.eps_is_input) b.Input("eps", {});
  else b.Init("eps", {}, {1e-5f});
  b.Init("two", {}, {2.0f}).RandomInit("gamma", o.gamma, 3).RandomInit("beta", {kN}, 4);
  OnnxBuilder::AttrInts(b.Node("ReduceMean", {"x"}, {"mean"}), "axes", {o.axis});
  b.Node("Sub", {"x", "mean"}, {"d"});
  b.Node("Pow", {"d", "two"}, {"sq"});
  OnnxBuilder::AttrInts(b.Node("ReduceMean", {"sq"}, {"var"}), "axes", {o.axis});
  b.Node("Add", {"var", "eps"}, {"ve"});
  b.Node("Sqrt", {"ve"}, {"sd"});
  b.Node("Div", {"d", "sd"}, {"n"});
  b.Node("Mul", {"n", "gamma"}, {"s"});
  b.Node("Add", {"s", "beta"}, {"y"});
  b.Output("y", o.gamma.size() > 3 ? Shape{1, 2, 5, kN} : Shape{2, 5, kN});
  if (o.extra_reader) b.Output("d", {2, 5, kN});
  return b;
}

std::vector<Value> Inputs(bool eps_is_input) {
  std::vector<Value> in = {Value(RandomTensor({2, 5, kN}, 1, -3.0f, 5.0f))};
  if (eps_is_input) in.push_back(Value(Tensor::ScalarF32(1e-5f)));
  return in;
}

TEST(FuseLayerNormTest, DecomposedLayerNormBecomesLayerNormalization) {
  auto r = FuseAndCompare(LayerNormModel(), FuseLayerNorm, Inputs(false), 1e-5f, 1e-5f);
  EXPECT_EQ(r.rewrites, 1u);
  EXPECT_EQ(r.ops, (std::map<std::string, int>{{"LayerNormalization", 1}}));
}

TEST(FuseLayerNormTest, NearMissesAreLeftAlone) {
  LnOptions axis;
  axis.axis = 1;  // the sequence axis
  EXPECT_EQ(FuseAndCompare(LayerNormModel(axis), FuseLayerNorm, Inputs(false)).rewrites, 0u);
  LnOptions eps;
  eps.eps_is_input = true;
  EXPECT_EQ(FuseAndCompare(LayerNormModel(eps), FuseLayerNorm, Inputs(true)).rewrites, 0u);
  LnOptions extra;
  extra.extra_reader = true;
  auto r = FuseAndCompare(LayerNormModel(extra), FuseLayerNorm, Inputs(false));
  EXPECT_EQ(r.rewrites, 0u);
  EXPECT_EQ(r.ops["Sub"], 1);
  LnOptions wide;  // a rank-4 scale makes the result rank 4: not LayerNormalization's shape
  wide.gamma = {1, 1, 1, kN};
  EXPECT_EQ(FuseAndCompare(LayerNormModel(wide), FuseLayerNorm, Inputs(false)).rewrites, 0u);
}

// RMSNorm as Llama exports write it: x * (1 / sqrt(mean(x^2) + eps)) * w, with the reciprocal
// as Div(1, .) or Reciprocal.
OnnxBuilder RmsModel(bool reciprocal, int64_t axis = -1) {
  OnnxBuilder b(14);
  b.Input("x", {1, 7, kN});
  b.Init("eps", {}, {1e-6f}).Init("two", {}, {2.0f}).Init("one", {}, {1.0f});
  b.RandomInit("w", {kN}, 5);
  b.Node("Pow", {"x", "two"}, {"sq"});
  OnnxBuilder::AttrInts(b.Node("ReduceMean", {"sq"}, {"ms"}), "axes", {axis});
  b.Node("Add", {"ms", "eps"}, {"mse"});
  b.Node("Sqrt", {"mse"}, {"r"});
  if (reciprocal) b.Node("Reciprocal", {"r"}, {"inv"});
  else b.Node("Div", {"one", "r"}, {"inv"});
  b.Node("Mul", {"x", "inv"}, {"n"});
  b.Node("Mul", {"n", "w"}, {"y"});
  b.Output("y", {1, 7, kN});
  return b;
}

TEST(FuseLayerNormTest, RmsDecompositionsBecomeRmsNormalization) {
  const std::vector<Value> in = {Value(RandomTensor({1, 7, kN}, 2, -4.0f, 4.0f))};
  for (bool recip : {false, true}) {
    auto r = FuseAndCompare(RmsModel(recip), FuseLayerNorm, in);
    EXPECT_EQ(r.rewrites, 1u) << recip;
    EXPECT_EQ(r.ops, (std::map<std::string, int>{{"RMSNormalization", 1}})) << recip;
  }
  EXPECT_EQ(FuseAndCompare(RmsModel(false, 1), FuseLayerNorm, in).rewrites, 0u);
}

}  // namespace
}  // namespace vt
