#include "vtensor/forms/weight_use.h"

#include <gtest/gtest.h>

namespace vt {
namespace {

Node MakeNode(const char* domain, const char* op_type) {
  Node n;
  n.domain = domain;
  n.op_type = op_type;
  return n;
}

void SetInt(Node& n, const char* name, int64_t v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kInt;
  a.i = v;
  n.attrs[name] = a;
}

TEST(WeightUseTest, EveryUseHasItsTraits) {
  for (WeightUse u : {WeightUse::kMatMulB, WeightUse::kGemmB, WeightUse::kGemmBTrans,
                      WeightUse::kConvFilter, WeightUse::kNBitsCodes, WeightUse::kNBitsScales,
                      WeightUse::kNBitsZeroPoints})
    EXPECT_EQ(GetWeightUseTraits(u).use, u);
  EXPECT_TRUE(GetWeightUseTraits(WeightUse::kGemmBTrans).b_trans);
  EXPECT_FALSE(GetWeightUseTraits(WeightUse::kConvFilter).matrix);
}

TEST(WeightUseTest, ConsumersNameTheWeightInputOnly) {
  EXPECT_NE(FindWeightConsumer("", "MatMul", 1), nullptr);
  EXPECT_NE(FindWeightConsumer("ai.onnx", "Gemm", 1), nullptr);
  EXPECT_EQ(FindWeightConsumer("", "Gemm", 0), nullptr);
  EXPECT_EQ(FindWeightConsumer("", "Gemm", 2), nullptr);  // C is not packed
  EXPECT_EQ(FindWeightConsumer("com.microsoft", "MatMul", 1), nullptr);
  for (size_t i = 1; i <= 3; ++i)
    EXPECT_NE(FindWeightConsumer("com.microsoft", "MatMulNBits", i), nullptr) << i;
  EXPECT_EQ(FindWeightConsumer("com.microsoft", "MatMulNBits", 4), nullptr);  // g_idx
}

TEST(WeightUseTest, NodeAttributesDecideTheUse) {
  Node gemm = MakeNode("", "Gemm");
  const WeightConsumer* c = FindWeightConsumer("", "Gemm", 1);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->use_of(gemm).use, WeightUse::kGemmB);
  SetInt(gemm, "transB", 1);
  EXPECT_EQ(c->use_of(gemm).use, WeightUse::kGemmBTrans);

  // FusedMatMul packs a 2-D constant B as Gemm's B, transB alike; no target layout.
  Node fused = MakeNode("com.microsoft", "FusedMatMul");
  const WeightConsumer* f = FindWeightConsumer("com.microsoft", "FusedMatMul", 1);
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->target_layout);
  EXPECT_EQ(f->use_of(fused).use, WeightUse::kGemmB);
  SetInt(fused, "transB", 1);
  EXPECT_EQ(f->use_of(fused).use, WeightUse::kGemmBTrans);

  Node conv = MakeNode("", "Conv");
  SetInt(conv, "group", 4);
  const WeightConsumer* k = FindWeightConsumer("", "Conv", 1);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->target_layout);
  const WeightUseInfo info = k->use_of(conv);
  EXPECT_EQ(info.use, WeightUse::kConvFilter);
  EXPECT_EQ(info.group, 4);
  EXPECT_TRUE(info.unit_strides_pads);
  Attribute s;
  s.name = "strides";
  s.type = Attribute::Type::kInts;
  s.ints = {2, 2};
  conv.attrs["strides"] = s;
  EXPECT_FALSE(k->use_of(conv).unit_strides_pads);
}

}  // namespace
}  // namespace vt
