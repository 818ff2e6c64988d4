// Bad input to the attention operators: wrong KV shapes, sequence lengths beyond the cache,
// head counts that do not divide, positions outside the rotary cache. Each must be an
// InvalidArgument naming the node and the input (the CLI turns it into exit code 2).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::MakeTensor;
using testing::OpCall;

Tensor Zeros(const Shape& s) { return Tensor::Zeros(DType::kFloat32, s); }
Tensor I32(const Shape& s, const std::vector<double>& v) {
  return MakeTensor(DType::kInt32, s, v);
}

// Runs `c` and expects an InvalidArgument naming node 't' and containing `what`.
void ExpectRejected(const OpCall& c, const std::string& what) {
  auto r = c.Run();
  ASSERT_FALSE(r.ok()) << c.op << ": accepted, expected an error about " << what;
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  EXPECT_NE(r.status().message().find("node 't'"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().ToString();
}

// GroupQueryAttention, num_heads 4, kv_num_heads 2, head size 8: decode with 5 past rows.
OpCall Gqa() {
  OpCall c;
  c.op = "GroupQueryAttention", c.domain = "com.microsoft", c.opset = 1;
  c.attrs = {AttrInt("num_heads", 4), AttrInt("kv_num_heads", 2)};
  c.inputs = {Zeros({1, 1, 32}), Zeros({1, 1, 16}), Zeros({1, 1, 16}), Zeros({1, 2, 5, 8}),
              Zeros({1, 2, 5, 8}), I32({1}, {5}), I32({}, {6})};
  c.num_outputs = 3;
  return c;
}

TEST(AttentionBadInput, GqaValidDecodeRuns) { EXPECT_TRUE(Gqa().Run().ok()); }

TEST(AttentionBadInput, GqaPastKeyWrongKvHeads) {
  OpCall c = Gqa();
  c.inputs[3] = Zeros({1, 4, 5, 8});
  ExpectRejected(c, "input past_key [1,4,5,8]");
}

TEST(AttentionBadInput, GqaPastValueWrongLength) {
  OpCall c = Gqa();
  c.inputs[4] = Zeros({1, 2, 4, 8});
  ExpectRejected(c, "input past_value");
}

TEST(AttentionBadInput, GqaSeqlensBeyondCache) {
  OpCall c = Gqa();
  c.inputs[5] = I32({1}, {9});
  ExpectRejected(c, "input seqlens_k[0] = 9 is outside the KV cache");
}

TEST(AttentionBadInput, GqaSeqlensNeedMorePastThanGiven) {
  OpCall c = Gqa();
  c.inputs[3] = c.inputs[4] = Zeros({1, 2, 3, 8});
  c.inputs[6] = I32({}, {9});
  c.inputs[5] = I32({1}, {7});
  ExpectRejected(c, "more than input past_key holds (3)");
}

TEST(AttentionBadInput, GqaSeqlensWrongType) {
  OpCall c = Gqa();
  c.inputs[5] = MakeTensor(DType::kInt64, {1}, {5});
  ExpectRejected(c, "input seqlens_k must be int32");
}

TEST(AttentionBadInput, GqaHeadsDoNotDivide) {
  OpCall c = Gqa();
  c.attrs = {AttrInt("num_heads", 4), AttrInt("kv_num_heads", 3)};
  ExpectRejected(c, "num_heads = 4 is not a multiple of kv_num_heads = 3");
}

TEST(AttentionBadInput, GqaKeyWrongHiddenSize) {
  OpCall c = Gqa();
  c.inputs[1] = Zeros({1, 1, 24});
  ExpectRejected(c, "input key [1,1,24]");
}

TEST(AttentionBadInput, GqaRotaryPositionOutsideCache) {
  OpCall c = Gqa();
  c.attrs.push_back(AttrInt("do_rotary", 1));
  c.inputs.push_back(Zeros({4, 4}));  // cos_cache: 4 positions, but the token sits at 5
  c.inputs.push_back(Zeros({4, 4}));
  ExpectRejected(c, "outside input cos_cache (4 positions)");
}

TEST(AttentionBadInput, GqaAttentionBiasWrongShape) {
  OpCall c = Gqa();
  c.inputs.resize(11);
  c.absent = {false, false, false, false, false, false, false, true, true, true, false};
  c.inputs[10] = Zeros({1, 4, 1, 5});
  ExpectRejected(c, "input attention_bias [1,4,1,5]");
}

// MultiHeadAttention, num_heads 2, head size 4, two past rows.
OpCall Mha() {
  OpCall c;
  c.op = "MultiHeadAttention", c.domain = "com.microsoft", c.opset = 1;
  c.attrs = {AttrInt("num_heads", 2)};
  c.inputs = {Zeros({2, 3, 8}), Zeros({2, 3, 8}), Zeros({2, 3, 8}), Tensor(), Tensor(),
              Tensor(), Zeros({2, 2, 2, 4}), Zeros({2, 2, 2, 4})};
  c.absent = {false, false, false, true, true, true, false, false};
  c.num_outputs = 3;
  return c;
}

TEST(AttentionBadInput, MhaValidRuns) { EXPECT_TRUE(Mha().Run().ok()); }

TEST(AttentionBadInput, MhaPastKeyWrongHeadSize) {
  OpCall c = Mha();
  c.inputs[6] = Zeros({2, 2, 2, 5});
  ExpectRejected(c, "inputs past_key [2,2,2,5]");
}

TEST(AttentionBadInput, MhaHiddenSizeNotMultipleOfHeads) {
  OpCall c = Mha();
  c.attrs = {AttrInt("num_heads", 3)};
  ExpectRejected(c, "input query hidden size 8 is not a multiple of num_heads = 3");
}

TEST(AttentionBadInput, MhaKeyPaddingMaskWrongShape) {
  OpCall c = Mha();
  c.absent[4] = false;
  c.inputs[4] = I32({2, 4}, {1, 1, 1, 1, 1, 1, 1, 1});  // T is 5
  ExpectRejected(c, "input key_padding_mask [2,4]");
}

TEST(AttentionBadInput, MhaPastSequenceLengthBeyondBuffer) {
  OpCall c = Mha();
  c.inputs.push_back(I32({1}, {1}));  // 1 + 3 new rows > 2 buffer rows
  c.absent.push_back(false);
  ExpectRejected(c, "input past_sequence_length = 1");
}

// com.microsoft Attention: input (2, 3, 6), weights (6, 24), num_heads 2.
OpCall MsAttention() {
  OpCall c;
  c.op = "Attention", c.domain = "com.microsoft", c.opset = 1;
  c.attrs = {AttrInt("num_heads", 2)};
  c.inputs = {Zeros({2, 3, 6}), Zeros({6, 24}), Zeros({24})};
  c.num_outputs = 2;
  return c;
}

TEST(AttentionBadInput, MsAttentionValidRuns) { EXPECT_TRUE(MsAttention().Run().ok()); }

TEST(AttentionBadInput, MsAttentionWeightsWrongRows) {
  OpCall c = MsAttention();
  c.inputs[1] = Zeros({5, 24});
  ExpectRejected(c, "input weights [5,24]");
}

TEST(AttentionBadInput, MsAttentionMaskIndexWrongShape) {
  OpCall c = MsAttention();
  c.inputs.push_back(I32({5}, {1, 1, 1, 1, 1}));
  ExpectRejected(c, "input mask_index [5]");
}

// do_rotary is refused as unsupported (docs/attention.md), naming the node and the fix.
TEST(AttentionBadInput, MsAttentionDoRotaryRefused) {
  OpCall c = MsAttention();
  c.attrs.push_back(AttrInt("do_rotary", 1));
  auto r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented) << r.status().ToString();
  EXPECT_NE(r.status().message().find("node 't'"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("RotaryEmbedding"), std::string::npos);
}

TEST(AttentionBadInput, MsAttentionPastWrongHeads) {
  OpCall c = MsAttention();
  c.inputs.push_back(Tensor());
  c.inputs.push_back(Zeros({2, 2, 3, 4, 4}));
  c.absent = {false, false, false, true, false};
  ExpectRejected(c, "input past [2,2,3,4,4]");
}

// ONNX Attention-23: Q (1, 4, 3, 8), K / V (1, 2, 5, 8).
OpCall OnnxAttention() {
  OpCall c;
  c.op = "Attention", c.opset = 23;
  c.inputs = {Zeros({1, 4, 3, 8}), Zeros({1, 2, 5, 8}), Zeros({1, 2, 5, 8})};
  c.num_outputs = 1;
  return c;
}

TEST(AttentionBadInput, OnnxAttentionValidRuns) { EXPECT_TRUE(OnnxAttention().Run().ok()); }

TEST(AttentionBadInput, OnnxAttentionHeadsDoNotDivide) {
  OpCall c = OnnxAttention();
  c.inputs[1] = c.inputs[2] = Zeros({1, 3, 5, 8});
  ExpectRejected(c, "query heads 4 are not a multiple of the KV heads 3");
}

TEST(AttentionBadInput, OnnxAttention3dWithoutHeadCounts) {
  OpCall c = OnnxAttention();
  c.inputs[0] = Zeros({1, 3, 32});
  ExpectRejected(c, "3-D input Q needs attributes q_num_heads and kv_num_heads");
}

TEST(AttentionBadInput, OnnxAttentionPastKeyWrongHeadSize) {
  OpCall c = OnnxAttention();
  c.inputs.push_back(Tensor());
  c.inputs.push_back(Zeros({1, 2, 4, 6}));
  c.inputs.push_back(Zeros({1, 2, 4, 8}));
  c.absent = {false, false, false, true, false, false};
  ExpectRejected(c, "inputs past_key [1,2,4,6]");
}

TEST(AttentionBadInput, OnnxAttentionMaskDoesNotBroadcast) {
  OpCall c = OnnxAttention();
  c.inputs.push_back(Zeros({2, 3, 5}));
  ExpectRejected(c, "input attn_mask [2,3,5] does not broadcast");
}

TEST(AttentionBadInput, OnnxAttentionNonpadBeyondKeys) {
  OpCall c = OnnxAttention();
  c.opset = 24;
  c.inputs.resize(7);
  c.absent = {false, false, false, true, true, true, false};
  c.inputs[6] = MakeTensor(DType::kInt64, {1}, {6});
  ExpectRejected(c, "input nonpad_kv_seqlen[0] = 6 is outside [0, 5]");
}

TEST(AttentionBadInput, RotaryPositionOutsideCache) {
  OpCall c;
  c.op = "RotaryEmbedding", c.opset = 23;
  c.inputs = {Zeros({1, 2, 3, 8}), Zeros({4, 4}), Zeros({4, 4}),
              MakeTensor(DType::kInt64, {1, 3}, {0, 1, 4})};
  ExpectRejected(c, "input position_ids: position 4 of token (0, 2)");
}

TEST(AttentionBadInput, MsRotaryDimWithoutNumHeads) {
  OpCall c;
  c.op = "RotaryEmbedding", c.domain = "com.microsoft", c.opset = 1;
  c.attrs = {AttrInt("rotary_embedding_dim", 4)};
  c.inputs = {Zeros({1, 3, 8}), MakeTensor(DType::kInt64, {1}, {0}), Zeros({4, 2}),
              Zeros({4, 2})};
  ExpectRejected(c, "rotary_embedding_dim needs attribute num_heads");
}

}  // namespace
}  // namespace vt::ops
