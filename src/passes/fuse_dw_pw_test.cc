#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "passes/fusion_test_util.h"
#include "vtensor/passes/fusion.h"

namespace vt {
namespace {

using testing::FuseAndCompare;
using testing::OnnxBuilder;
using testing::RandomTensor;

// The depthwise Conv of a pair: kernel k, stride s, dilation dl, pads {top, left, bottom,
// right}, optionally a bias and a HardSwish after it (FuseConv makes it the Conv's activation).
struct Depthwise {
  int64_t k = 3, s = 1, dl = 1;
  std::vector<int64_t> pads = {1, 1, 1, 1};
  bool bias = true;
  bool act = true;
};

// The depthwise output's extent for input extent `in`.
int64_t OutExtent(const Depthwise& d, int64_t in, int axis) {
  const int64_t span = (d.k - 1) * d.dl + 1;
  return (in + d.pads[static_cast<size_t>(axis)] + d.pads[static_cast<size_t>(axis) + 2] - span) /
             d.s +
         1;
}

// x [2, C, H, W] -> depthwise Conv -> (HardSwish) -> pointwise Conv [M, C, 1, 1] (+ bias) ->
// Relu -> y; `extra` adds a second reader of the depthwise output.
OnnxBuilder PairModel(const Depthwise& d, int64_t c, int64_t m, int64_t h, int64_t w,
                      bool extra = false) {
  const int64_t oh = OutExtent(d, h, 0), ow = OutExtent(d, w, 1);
  OnnxBuilder b(14);  // HardSwish: opset 14
  b.Input("x", {2, c, h, w}).Output("y", {2, m, oh, ow});
  b.RandomInit("wd", {c, 1, d.k, d.k}, 1).RandomInit("bd", {c}, 2);
  b.RandomInit("wp", {m, c, 1, 1}, 3).RandomInit("bp", {m}, 4);
  auto& dw = b.Node("Conv", d.bias ? std::vector<std::string>{"x", "wd", "bd"}
                                   : std::vector<std::string>{"x", "wd"},
                    {"h"});
  OnnxBuilder::AttrI(dw, "group", c);
  OnnxBuilder::AttrInts(dw, "strides", {d.s, d.s});
  OnnxBuilder::AttrInts(dw, "dilations", {d.dl, d.dl});
  OnnxBuilder::AttrInts(dw, "pads", d.pads);
  std::string dw_out = "h";
  if (d.act) {
    b.Node("HardSwish", {"h"}, {"a"});
    dw_out = "a";
  }
  b.Node("Conv", {dw_out, "wp", "bp"}, {"p"});
  b.Node("Relu", {"p"}, {"y"});
  if (extra) {
    b.Node("Neg", {dw_out}, {"z"});
    b.Output("z", {2, c, oh, ow});
  }
  return b;
}

size_t FuseBoth(Graph& g) {
  FuseConv(g);
  return FuseDepthwisePointwise(g);
}

TEST(FuseDepthwisePointwiseTest, PairsBecomeOneConvWithTheSameBits) {
  const Depthwise cases[] = {
      {},                                          // 3x3, stride 1, pads 1
      {3, 2, 1, {1, 1, 1, 1}, true, false},       // stride 2, no activation
      {5, 1, 1, {2, 2, 2, 2}, false, true},       // 5x5, no bias
      {3, 1, 2, {2, 1, 0, 3}, true, true},        // dilation 2, asymmetric pads
      {3, 2, 1, {0, 0, 0, 0}, true, true},        // no pads
  };
  for (const Depthwise& d : cases)
    for (int64_t h : {7, 500})  // one band; several (64 Ki floats a band: 2 at stride 2)
      for (int threads : {1, 2}) {
        SCOPED_TRACE("k " + std::to_string(d.k) + " s " + std::to_string(d.s) + " dl " +
                     std::to_string(d.dl) + " h " + std::to_string(h) + " threads " +
                     std::to_string(threads));
        OnnxBuilder b = PairModel(d, 16, 24, h, 37);
        auto ref = b.Import();
        ASSERT_TRUE(ref.ok());
        FuseConv(*ref->graph);  // the reference keeps the two Convs
        auto model = b.Import();
        ASSERT_TRUE(model.ok());
        EXPECT_EQ(FuseBoth(*model->graph), 1u);
        ASSERT_EQ(model->graph->nodes.size(), 1u);
        EXPECT_EQ(model->graph->nodes[0].inputs.size(), 5u);
        const std::vector<Value> in = {Value(RandomTensor({2, 16, h, 37}, 5, -3.0f, 3.0f))};
        auto want = EvaluateModel(*ref, in, threads);
        auto got = EvaluateModel(*model, in, threads);
        ASSERT_TRUE(want.ok()) << want.status().ToString();
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        const Tensor w = (*want)[0].tensor().Contiguous(), t = (*got)[0].tensor().Contiguous();
        ASSERT_EQ(w.shape(), t.shape());
        EXPECT_EQ(std::memcmp(w.data<float>(), t.data<float>(), w.numel() * sizeof(float)), 0);
      }
}

TEST(FuseDepthwisePointwiseTest, KeepsPairsItCannotFuse) {
  // The depthwise output has a second reader.
  auto shared = FuseAndCompare(PairModel({}, 8, 8, 9, 9, true), FuseBoth,
                               {Value(RandomTensor({2, 8, 9, 9}, 6))});
  EXPECT_EQ(shared.rewrites, 0u);
  EXPECT_EQ(shared.ops["Conv"], 2);
  // auto_pad on the depthwise Conv; a strided pointwise Conv; a grouped, not depthwise, Conv.
  for (int variant = 0; variant < 3; ++variant) {
    OnnxBuilder b(13);
    const int64_t out = variant == 0 ? 9 : variant == 1 ? 4 : 7;
    b.Input("x", {1, 8, 9, 9}).Output("y", {1, 8, out, out});
    b.RandomInit("wd", {8, variant == 2 ? 2 : 1, 3, 3}, 1).RandomInit("wp", {8, 8, 1, 1}, 3);
    auto& dw = b.Node("Conv", {"x", "wd"}, {"h"});
    OnnxBuilder::AttrI(dw, "group", variant == 2 ? 4 : 8);
    if (variant == 0) OnnxBuilder::AttrS(dw, "auto_pad", "SAME_UPPER");
    auto& pw = b.Node("Conv", {"h", "wp"}, {"y"});
    if (variant == 1) OnnxBuilder::AttrInts(pw, "strides", {2, 2});
    SCOPED_TRACE("variant " + std::to_string(variant));
    auto r = FuseAndCompare(b, FuseBoth, {Value(RandomTensor({1, 8, 9, 9}, 7))});
    EXPECT_EQ(r.rewrites, 0u) << "variant " << variant;
    EXPECT_EQ(r.ops["Conv"], 2) << "variant " << variant;
  }
}

TEST(FuseDepthwisePointwiseTest, BadFusedInputsAreRefusedNamingTheNode) {
  OnnxBuilder b = PairModel({}, 8, 8, 9, 9);
  auto model = b.Import();
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(FuseBoth(*model->graph), 1u);
  // The depthwise filter swapped for one of another channel count.
  model->graph->initializers["wd"] = RandomTensor({4, 1, 3, 3}, 8);
  auto r = EvaluateModel(*model, {Value(RandomTensor({2, 8, 9, 9}, 9))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("depthwise"), std::string::npos) << r.status().message();
}

TEST(FuseDepthwisePointwiseTest, AFusedPairIsLeftAloneByFuseConvAndCheckedAtRunTime) {
  OnnxBuilder b = PairModel({}, 8, 8, 9, 9);
  auto model = b.Import();
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(FuseBoth(*model->graph), 1u);
  Node& pair = model->graph->nodes[0];
  EXPECT_EQ(FuseConv(*model->graph), 0u);  // it would drop the depthwise inputs
  EXPECT_EQ(pair.inputs.size(), 5u);
  // A pair node whose own geometry is not pointwise is refused, not run with it ignored.
  Attribute s;
  s.name = "strides";
  s.type = Attribute::Type::kInts;
  s.ints = {2, 2};
  pair.attrs["strides"] = s;
  auto r = EvaluateModel(*model, {Value(RandomTensor({2, 8, 9, 9}, 10))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("needs a pointwise Conv"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace vt
