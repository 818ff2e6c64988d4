#include <gtest/gtest.h>

#include <cmath>

#include "passes/fusion_test_util.h"
#include "vtensor/passes/transformer_fusion.h"

namespace vt {
namespace {

using testing::FuseAndCompare;
using testing::OnnxBuilder;
using testing::RandomTensor;

constexpr int64_t kB = 2, kS = 6, kN = 4, kD = 8;

struct BertOptions {
  int64_t softmax_axis = -1;
  bool scale_is_input = false;  // the score divisor is a graph input
  bool scores_out = false;      // the scaled scores are also a graph output
};

// BERT self-attention as torch.onnx.export writes it: q, k, v [B, S, N*D] split into heads by
// Reshape + Transpose (K straight to K^T with perm 0,2,3,1), scores divided by sqrt(D), the
// additive mask, Softmax, the product with V and the head merge back to [B, S, N*D].
OnnxBuilder BertAttention(const BertOptions& o = {}) {
  OnnxBuilder b(14);
  for (const char* n : {"q", "k", "v"}) b.Input(n, {kB, kS, kN * kD});
  b.Input("mask", {kB, 1, 1, kS});
  if (o.scale_is_input) b.Input("c", {});
  else b.Init("c", {}, {static_cast<float>(std::sqrt(double(kD)))});
  b.InitI64("split", {4}, {kB, kS, kN, kD}).InitI64("merge", {3}, {0, 0, kN * kD});
  for (const char* n : {"q", "k", "v"}) b.Node("Reshape", {n, "split"}, {std::string(n) + "4"});
  OnnxBuilder::AttrInts(b.Node("Transpose", {"q4"}, {"qh"}), "perm", {0, 2, 1, 3});
  OnnxBuilder::AttrInts(b.Node("Transpose", {"k4"}, {"kt"}), "perm", {0, 2, 3, 1});
  OnnxBuilder::AttrInts(b.Node("Transpose", {"v4"}, {"vh"}), "perm", {0, 2, 1, 3});
  b.Node("MatMul", {"qh", "kt"}, {"s"});
  b.Node("Div", {"s", "c"}, {"sd"});
  b.Node("Add", {"sd", "mask"}, {"sm"});
  OnnxBuilder::AttrI(b.Node("Softmax", {"sm"}, {"p"}), "axis", o.softmax_axis);
  b.Node("MatMul", {"p", "vh"}, {"ctx"});
  OnnxBuilder::AttrInts(b.Node("Transpose", {"ctx"}, {"ct"}), "perm", {0, 2, 1, 3});
  b.Node("Reshape", {"ct", "merge"}, {"y"});
  b.Output("y", {kB, kS, kN * kD});
  if (o.scores_out) b.Output("sd", {kB, kN, kS, kS});
  return b;
}

std::vector<Value> BertInputs(const BertOptions& o = {}) {
  std::vector<Value> in;
  for (uint32_t i = 0; i < 3; ++i) in.push_back(Value(RandomTensor({kB, kS, kN * kD}, 20 + i, -2.0f, 2.0f)));
  // Padding: the last two keys of the second sequence are masked with -10000.
  Tensor mask = Tensor::Zeros(DType::kFloat32, {kB, 1, 1, kS});
  float* m = mask.mutable_data<float>();
  m[kS + kS - 1] = m[kS + kS - 2] = -10000.0f;
  in.push_back(Value(mask));
  if (o.scale_is_input) in.push_back(Value(Tensor::ScalarF32(std::sqrt(float(kD)))));
  return in;
}

TEST(FuseAttentionTest, BertSelfAttentionBecomesOneNode) {
  auto r = FuseAndCompare(BertAttention(), FuseAttention, BertInputs(), 1e-5f, 1e-4f);
  EXPECT_EQ(r.rewrites, 1u);
  EXPECT_EQ(r.ops, (std::map<std::string, int>{{"ai.vtensor:Attention", 1}}));
}

TEST(FuseAttentionTest, NearMissesAreLeftAlone) {
  BertOptions axis;
  axis.softmax_axis = 2;
  EXPECT_EQ(FuseAndCompare(BertAttention(axis), FuseAttention, BertInputs(axis)).rewrites, 0u);
  BertOptions scale;
  scale.scale_is_input = true;
  EXPECT_EQ(FuseAndCompare(BertAttention(scale), FuseAttention, BertInputs(scale)).rewrites, 0u);
  BertOptions reader;
  reader.scores_out = true;
  EXPECT_EQ(FuseAndCompare(BertAttention(reader), FuseAttention, BertInputs(reader)).rewrites, 0u);
}

// A Llama decode step with grouped-query attention: q [1, N, 1, D] against K / V of Nkv heads
// repeated by repeat_kv (Unsqueeze / Expand / Reshape), scores scaled by Mul, a causal mask
// input [1, 1, mask_rows, T] (more than one row widens the scores: not attention of one query).
OnnxBuilder GqaDecode(int64_t kv_heads, int64_t t, int64_t mask_rows = 1) {
  OnnxBuilder b(17);
  const int64_t g = kN / kv_heads;
  b.Input("q", {1, kN, 1, kD});
  b.Input("k", {1, kv_heads, t, kD});
  b.Input("v", {1, kv_heads, t, kD});
  b.Input("mask", {1, 1, mask_rows, t});
  b.Init("c", {}, {1.0f / std::sqrt(float(kD))});
  b.InitI64("ax2", {1}, {2});
  b.InitI64("exp", {5}, {1, kv_heads, g, t, kD}).InitI64("rep", {4}, {1, kN, t, kD});
  for (const char* n : {"k", "v"}) {
    const std::string s(n);
    b.Node("Unsqueeze", {s, "ax2"}, {s + "u"});
    b.Node("Expand", {s + "u", "exp"}, {s + "e"});
    b.Node("Reshape", {s + "e", "rep"}, {s + "r"});
  }
  OnnxBuilder::AttrInts(b.Node("Transpose", {"kr"}, {"kt"}), "perm", {0, 1, 3, 2});
  b.Node("MatMul", {"q", "kt"}, {"s"});
  b.Node("Mul", {"s", "c"}, {"sd"});
  b.Node("Add", {"sd", "mask"}, {"sm"});
  OnnxBuilder::AttrI(b.Node("Softmax", {"sm"}, {"p"}), "axis", -1);
  b.Node("MatMul", {"p", "vr"}, {"y"});
  b.Output("y", {1, kN, mask_rows, kD});
  return b;
}

std::vector<Value> DecodeInputs(int64_t kv, int64_t t, int64_t mask_rows = 1) {
  Tensor mask = Tensor::Zeros(DType::kFloat32, {1, 1, mask_rows, t});
  mask.mutable_data<float>()[t - 1] = -INFINITY;
  return {Value(RandomTensor({1, kN, 1, kD}, 1, -2.0f, 2.0f)),
          Value(RandomTensor({1, kv, t, kD}, 2, -2.0f, 2.0f)), Value(RandomTensor({1, kv, t, kD}, 3)),
          Value(mask)};
}

TEST(FuseAttentionTest, GroupedQueryDecodeStepBecomesOneNode) {
  const int64_t t = 33;
  for (int64_t kv : {int64_t{1}, int64_t{2}, kN}) {
    auto r = FuseAndCompare(GqaDecode(kv, t), FuseAttention, DecodeInputs(kv, t), 1e-5f, 1e-4f);
    EXPECT_EQ(r.rewrites, 1u) << kv;
    EXPECT_EQ(r.ops, (std::map<std::string, int>{{"ai.vtensor:Attention", 1}})) << kv;
  }
}

TEST(FuseAttentionTest, MaskThatWidensTheScoresIsLeftAlone) {
  auto r = FuseAndCompare(GqaDecode(2, 9, 3), FuseAttention, DecodeInputs(2, 9, 3));
  EXPECT_EQ(r.rewrites, 0u);
  EXPECT_EQ(r.ops["Softmax"], 1);
}

}  // namespace
}  // namespace vt
