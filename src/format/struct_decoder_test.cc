#include "vtensor/format/struct_decoder.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <set>

#include "vtensor/format/planar_block_quant.h"
#include "vtensor/layout/layout_presets.h"

namespace vt {
namespace {

onnx::FunctionProto Parse(const std::string& s) {
  onnx::FunctionProto f;
  EXPECT_TRUE(f.ParseFromString(s));
  return f;
}

std::vector<std::string> Ops(const onnx::FunctionProto& f) {
  std::vector<std::string> v;
  for (const auto& n : f.node())
    if (n.op_type() != "Constant") v.push_back(n.op_type());
  return v;
}

// Execution is checked with vtensor's runtime in src/runtime/decoder_runner_test.cc and in
// stock ONNX Runtime by tests/format/ort_stock_compat.sh; here the structure: one input per
// field, one output, standard ops only.
TEST(StructDecoderTest, PanelsReshapeTransposeReshapeSlice) {
  auto f = Parse(*BuildLayoutDecoder(*GemmColumnPanels(17, 33, 16), "decode_p16"));
  EXPECT_EQ(f.domain(), kDecoderDomain);
  ASSERT_EQ(f.input_size(), 1);
  EXPECT_EQ(f.input(0), "data");
  ASSERT_EQ(f.output_size(), 1);
  EXPECT_EQ(Ops(f), (std::vector<std::string>{"Reshape", "Transpose", "Reshape", "Slice"}));
  for (const auto& n : f.node())
    if (n.op_type() == "Transpose") {
      // Physical digits (n/16, k, n%16) -> logical order (k, n/16, n%16).
      ASSERT_EQ(n.attribute(0).ints_size(), 3);
      EXPECT_EQ(n.attribute(0).ints(0), 1);
      EXPECT_EQ(n.attribute(0).ints(1), 0);
      EXPECT_EQ(n.attribute(0).ints(2), 2);
    }
  // Exact multiple: no final Slice.
  auto g = Parse(*BuildLayoutDecoder(*GemmColumnPanels(8, 32, 16), "decode_p16"));
  EXPECT_EQ(Ops(g), (std::vector<std::string>{"Reshape", "Transpose", "Reshape"}));
}

TEST(StructDecoderTest, StridedViewsAndUnsupportedEncodings) {
  auto t = Layout::Contiguous({3, 4}, Encoding::kF16).Transpose({1, 0});
  auto f = Parse(*BuildLayoutDecoder(*t, "decode_t"));
  EXPECT_EQ(Ops(f), (std::vector<std::string>{"Reshape", "Transpose", "Reshape"}));
  auto q = BlockQuantizedWeight(8, 256, Encoding::kQ4_K, BlockOrder::kInputBlockMajor);
  EXPECT_EQ(BuildLayoutDecoder(*q, "x").status().code(), StatusCode::kUnimplemented);
  auto b = Layout::Contiguous({4}, Encoding::kF32).BroadcastTo({2, 4});
  EXPECT_EQ(BuildLayoutDecoder(*b, "x").status().code(), StatusCode::kUnimplemented);
}

// Block formats: uint8 bytes in, lookup tables (Gather) and float arithmetic, no BitCast.
TEST(StructDecoderTest, BlockFormatsUseStandardOpsOnly) {
  const std::set<std::string> standard = {"Constant", "Cast", "Gather", "Slice", "Reshape",
                                          "Transpose", "Concat", "Unsqueeze", "Pad", "Add",
                                          "Sub", "Mul", "Greater", "Where"};
  for (Encoding e : {Encoding::kQ8_0, Encoding::kQ4_0, Encoding::kQ4Zp32, Encoding::kU4}) {
    auto l = BlockQuantizedWeight(40, 64, e, BlockOrder::kInputBlockMajor, 8);
    auto d = BuildLayoutDecoder(*l->Transpose({1, 0}), "d");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    auto f = Parse(*d);
    ASSERT_EQ(f.input_size(), 1);
    ASSERT_EQ(f.opset_import_size(), 1);
    EXPECT_EQ(f.opset_import(0).version(), 13);
    for (const auto& n : f.node()) {
      EXPECT_TRUE(n.domain().empty());
      EXPECT_TRUE(standard.count(n.op_type())) << n.op_type();
    }
  }
}

TEST(StructDecoderTest, DecoderInputsFollowTheContract) {
  PlanarBlockQuantSpec s{3, 5, 4, true, Encoding::kF16};
  auto t = PlanarBlockQuantType(s, "w");
  ASSERT_TRUE(t.ok());
  std::vector<uint8_t> payload(static_cast<size_t>(t->byte_size()));
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 7);
  auto in = DecoderInputs(*t, payload.data(), payload.size());
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  ASSERT_EQ(in->size(), 3u);
  EXPECT_EQ((*in)[0].dtype(), DType::kUInt8);  // u4 [3,5]: 8 bytes
  EXPECT_EQ((*in)[0].shape(), Shape({8}));
  EXPECT_EQ((*in)[1].dtype(), DType::kFloat16);  // f16 [3,2] at offset 64
  EXPECT_EQ((*in)[1].shape(), Shape({3, 2}));
  EXPECT_EQ(static_cast<const uint8_t*>((*in)[1].raw_data())[0], payload[64]);
  EXPECT_EQ((*in)[2].shape(), Shape({3}));  // u4 [3,2]: 3 bytes
  auto short_payload = DecoderInputs(*t, payload.data(), payload.size() - 1);
  ASSERT_FALSE(short_payload.ok());
  EXPECT_NE(short_payload.status().message().find("'zero_points'"), std::string::npos);
}

}  // namespace
}  // namespace vt
