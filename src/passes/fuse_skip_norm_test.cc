#include <gtest/gtest.h>

#include "passes/fusion_test_util.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

using testing::FuseAndCompare;
using testing::OnnxBuilder;
using testing::RandomTensor;

constexpr int64_t kN = 41;

// The residual stream of a transformer block: h = a + b, y = Norm(h) (LayerNormalization-17
// or RMSNormalization-23 over the last axis), and h also read by the next residual add when
// `sum_read`; fused into com.microsoft SkipLayerNormalization / SkipSimplifiedLayerNormalization. `b_shape` is b's shape (broadcast when it differs from a's).
OnnxBuilder Residual(bool rms, bool sum_read, const Shape& b_shape = {2, 3, kN}) {
  OnnxBuilder b(rms ? 23 : 17);
  b.Input("a", {2, 3, kN});
  b.Input("b", b_shape);
  b.RandomInit("gamma", {kN}, 5).RandomInit("beta", {kN}, 6);
  b.Node("Add", {"a", "b"}, {"h"});
  auto& n = rms ? b.Node("RMSNormalization", {"h", "gamma"}, {"y"})
                : b.Node("LayerNormalization", {"h", "gamma", "beta"}, {"y"});
  OnnxBuilder::AttrI(n, "axis", -1);
  OnnxBuilder::AttrF(n, "epsilon", 1e-6f);
  b.Output("y", {2, 3, kN});
  if (sum_read) {
    b.Node("Add", {"h", "y"}, {"next"});
    b.Output("next", {2, 3, kN});
  }
  return b;
}

std::vector<Value> Inputs(const Shape& b_shape = {2, 3, kN}) {
  return {Value(RandomTensor({2, 3, kN}, 1, -2.0f, 3.0f)), Value(RandomTensor(b_shape, 2))};
}

TEST(FuseSkipNormTest, ResidualAddAndNormBecomeOneNode) {
  for (bool rms : {false, true})
    for (bool sum_read : {false, true}) {
      auto r = FuseAndCompare(Residual(rms, sum_read), FuseSkipNorm, Inputs(), 1e-5f, 1e-5f);
      EXPECT_EQ(r.rewrites, 1u) << rms << sum_read;
      const char* op = rms ? "com.microsoft:SkipSimplifiedLayerNormalization"
                           : "com.microsoft:SkipLayerNormalization";
      std::map<std::string, int> want = {{op, 1}};
      if (sum_read) want["Add"] = 1;
      EXPECT_EQ(r.ops, want);
    }
}

TEST(FuseSkipNormTest, BroadcastingAddOrRank4IsLeftAlone) {
  auto r = FuseAndCompare(Residual(false, false, {kN}), FuseSkipNorm, Inputs({kN}));
  EXPECT_EQ(r.rewrites, 0u);
  EXPECT_EQ(r.ops["LayerNormalization"], 1);
  // SkipLayerNormalization takes ranks 2 and 3 only.
  OnnxBuilder b(17);
  b.Input("a", {2, 1, 3, kN}).Input("b", {2, 1, 3, kN});
  b.RandomInit("gamma", {kN}, 5);
  b.Node("Add", {"a", "b"}, {"h"});
  OnnxBuilder::AttrI(b.Node("LayerNormalization", {"h", "gamma"}, {"y"}), "axis", -1);
  b.Output("y", {2, 1, 3, kN});
  auto r4 = FuseAndCompare(b, FuseSkipNorm,
                           {Value(RandomTensor({2, 1, 3, kN}, 1)), Value(RandomTensor({2, 1, 3, kN}, 2))});
  EXPECT_EQ(r4.rewrites, 0u);
}

}  // namespace
}  // namespace vt
