#include "vtensor/format/struct_decoder.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

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

// Execution is checked in stock ONNX Runtime by tests/format/ort_stock_compat.sh; here the
// structure: one input per field, one output, standard ops only.
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
  auto q = BlockQuantizedWeight(8, 64, Encoding::kQ4_0, BlockOrder::kInputBlockMajor);
  EXPECT_EQ(BuildLayoutDecoder(*q, "x").status().code(), StatusCode::kUnimplemented);
  auto b = Layout::Contiguous({4}, Encoding::kF32).BroadcastTo({2, 4});
  EXPECT_EQ(BuildLayoutDecoder(*b, "x").status().code(), StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace vt
