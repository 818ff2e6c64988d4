#include <gtest/gtest.h>

#include <cmath>

#include "passes/fusion_test_util.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

using testing::FuseAndCompare;
using testing::OnnxBuilder;
using testing::RandomTensor;

const Shape kShape = {3, 17};

// x * 0.5 * (1 + Erf(x / sqrt(2))) as torch.onnx.export writes nn.GELU(): Div / Erf / Add /
// Mul(x, .) / Mul(., 0.5). `root2` replaces sqrt(2); `erf_read_twice` adds a reader of Erf.
OnnxBuilder ErfGelu(float root2 = static_cast<float>(std::sqrt(2.0)), bool erf_read_twice = false) {
  OnnxBuilder b(14);
  b.Input("x", kShape);
  b.Init("root2", {}, {root2}).Init("one", {}, {1.0f}).Init("half", {}, {0.5f});
  b.Node("Div", {"x", "root2"}, {"xs"});
  b.Node("Erf", {"xs"}, {"e"});
  b.Node("Add", {"e", "one"}, {"a"});
  b.Node("Mul", {"x", "a"}, {"m"});
  b.Node("Mul", {"m", "half"}, {"y"});
  b.Output("y", kShape);
  if (erf_read_twice) b.Output("e", kShape);
  return b;
}

// 0.5 * x * (1 + Tanh(sqrt(2 / pi) * (x + 0.044715 * Pow(x, 3)))), the tanh form of GELU.
OnnxBuilder TanhGelu(float c = 0.044715f) {
  OnnxBuilder b(14);
  b.Input("x", kShape);
  b.Init("three", {}, {3.0f}).Init("c", {}, {c});
  b.Init("k", {}, {static_cast<float>(std::sqrt(2.0 / M_PI))});
  b.Init("one", {}, {1.0f}).Init("half", {}, {0.5f});
  b.Node("Mul", {"x", "half"}, {"h"});
  b.Node("Pow", {"x", "three"}, {"x3"});
  b.Node("Mul", {"c", "x3"}, {"cx3"});
  b.Node("Add", {"x", "cx3"}, {"s"});
  b.Node("Mul", {"k", "s"}, {"u"});
  b.Node("Tanh", {"u"}, {"t"});
  b.Node("Add", {"one", "t"}, {"a"});
  b.Node("Mul", {"h", "a"}, {"y"});
  b.Output("y", kShape);
  return b;
}

std::vector<Value> Inputs() { return {Value(RandomTensor(kShape, 7, -6.0f, 6.0f))}; }

TEST(FuseGeluTest, ErfAndTanhFormsBecomeGelu) {
  auto erf = FuseAndCompare(ErfGelu(), FuseGelu, Inputs(), 1e-6f, 1e-5f);
  EXPECT_EQ(erf.rewrites, 1u);
  EXPECT_EQ(erf.ops, (std::map<std::string, int>{{"Gelu", 1}}));
  auto tanh = FuseAndCompare(TanhGelu(), FuseGelu, Inputs(), 1e-6f, 1e-5f);
  EXPECT_EQ(tanh.rewrites, 1u);
  EXPECT_EQ(tanh.ops, (std::map<std::string, int>{{"Gelu", 1}}));
}

TEST(FuseGeluTest, OtherConstantsOrAnExtraReaderAreLeftAlone) {
  EXPECT_EQ(FuseAndCompare(ErfGelu(1.5f), FuseGelu, Inputs()).rewrites, 0u);
  EXPECT_EQ(FuseAndCompare(ErfGelu(static_cast<float>(std::sqrt(2.0)), true), FuseGelu, Inputs()).rewrites, 0u);
  EXPECT_EQ(FuseAndCompare(TanhGelu(0.05f), FuseGelu, Inputs()).rewrites, 0u);
}

}  // namespace
}  // namespace vt
