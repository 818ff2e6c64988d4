// Round trip of layouts through their MLIR attribute form (f32 panels,
// int4 block-32 in kernel-feed order, Q4_K super-blocks among them), with and without
// mlir-opt-16 re-printing the module in between.
#include "vtensor/export/layout_attr.h"

#include <gtest/gtest.h>

#include "export/export_test_util.h"
#include "vtensor/layout/layout_presets.h"

namespace vt {
namespace {

std::vector<Layout> Samples() {
  std::vector<Layout> v;
  v.push_back(*GemmColumnPanels(64, 40, 16));                                            // f32 panels
  v.push_back(*GemmColumnPanels(19, 45, 32));                                            // ragged panels
  v.push_back(*Layout::Strided({4, 3}, {1, 4}, 0, Encoding::kF32));                      // swapped strides
  v.push_back(Layout::Contiguous({2, 3}, Encoding::kF32));
  v.push_back(*BlockQuantizedWeight(8, 64, Encoding::kQ4_0, BlockOrder::kInputBlockMajor));     // int4 b32 feed
  v.push_back(*BlockQuantizedWeight(6, 96, Encoding::kQ4Zp32, BlockOrder::kInputBlockMajor, 2));
  v.push_back(*BlockQuantizedWeight(8, 64, Encoding::kQ4_0, BlockOrder::kRowMajor));
  v.push_back(*BlockQuantizedWeight(3, 512, Encoding::kQ4_K, BlockOrder::kInputBlockMajor, 2));  // Q4_K
  v.push_back(*BlockQuantizedWeight(2, 300, Encoding::kQ4_K, BlockOrder::kRowMajor));
  v.push_back(*BlockQuantizedWeight(4, 64, Encoding::kQ8_0, BlockOrder::kInputBlockMajor));
  return v;
}

TEST(LayoutAttrTest, EveryLayoutRoundTripsThroughItsTypedFields) {
  for (const Layout& l : Samples()) {
    LayoutFacts f = DescribeLayout(l);
    const std::string text = LayoutFactsToMlir(f);
    auto back = LayoutFactsFromMlir(text);
    ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << text;
    back->text.clear();  // rebuilt from the typed fields alone
    auto rebuilt = LayoutFromFacts(*back);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
    EXPECT_EQ(*rebuilt, l) << f.text;
    EXPECT_EQ(rebuilt->block_order(), l.block_order());
  }
}

TEST(LayoutAttrTest, FactsCarryBlockGeometryAndOrder) {
  LayoutFacts q4k = DescribeLayout(*BlockQuantizedWeight(3, 512, Encoding::kQ4_K,
                                                         BlockOrder::kInputBlockMajor, 2));
  EXPECT_EQ(q4k.encoding, "q4_k");
  EXPECT_EQ(q4k.block_elems, 256);
  EXPECT_EQ(q4k.block_bytes, 144);
  EXPECT_EQ(q4k.block_order, "input_block_major");
  EXPECT_EQ(q4k.scale_placement, "in_block");
  EXPECT_EQ(q4k.form, "packed");
  LayoutFacts f32 = DescribeLayout(*GemmColumnPanels(64, 40, 16));
  EXPECT_EQ(f32.block_elems, 1);
  EXPECT_EQ(f32.block_bytes, 4);
  EXPECT_EQ(f32.scale_placement, "none");
  EXPECT_EQ(f32.padded, (Shape{64, 48}));
}

TEST(LayoutAttrTest, InconsistentFactsAreRejected) {
  LayoutFacts f = DescribeLayout(*BlockQuantizedWeight(8, 64, Encoding::kQ4_0, BlockOrder::kInputBlockMajor));
  f.block_bytes = 20;
  EXPECT_FALSE(LayoutFromFacts(f).ok());
  f = DescribeLayout(*GemmColumnPanels(64, 40, 16));
  f.text = "vt.layout.v1<[64,40],f32>";
  auto r = LayoutFromFacts(f);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("text"), std::string::npos);
  EXPECT_FALSE(LayoutFactsFromMlir("{version = 1 : i64").ok());
  auto missing = LayoutFactsFromMlir("{version = 1 : i64}");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'shape'"), std::string::npos);
}

std::string ModuleWith(const std::vector<Layout>& ls) {
  std::string d, globals;
  for (size_t i = 0; i < ls.size(); ++i) {
    const std::string facts = LayoutFactsToMlir(DescribeLayout(ls[i]));
    d += std::string(i ? ", " : "") + "\"w." + std::to_string(i) + "\" = " + facts;
    globals += "  \"util.global\"() {sym_name = \"w" + std::to_string(i) +
               "\", type = tensor<4xf32, #vt.layout<" + facts + ">>} : () -> ()\n";
  }
  return "module attributes {vt.tensor_layouts = {" + d + "}} {\n" + globals + "}\n";
}

TEST(LayoutAttrTest, ModuleAttributeAndTypeEncodingsReadBack) {
  const std::vector<Layout> ls = Samples();
  const std::string module = ModuleWith(ls);
  auto dict = ReadTensorLayouts(module);
  ASSERT_TRUE(dict.ok()) << dict.status().ToString();
  ASSERT_EQ(dict->size(), ls.size());
  for (size_t i = 0; i < ls.size(); ++i) EXPECT_EQ(dict->at("w." + std::to_string(i)), ls[i]);
  auto types = ReadTypeLayouts(module);
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  EXPECT_EQ(*types, ls);
}

TEST(LayoutAttrTest, LayoutsSurviveMlirOptReprinting) {
  if (!testing::HaveMlirOpt()) GTEST_SKIP() << "mlir-opt-16 not installed";
  const std::vector<Layout> ls = Samples();
  std::string reprinted;
  const std::string err = testing::MlirOptParse(ModuleWith(ls), &reprinted);
  ASSERT_EQ(err, "");
  auto dict = ReadTensorLayouts(reprinted);  // keys re-printed in sorted order
  ASSERT_TRUE(dict.ok()) << dict.status().ToString();
  for (size_t i = 0; i < ls.size(); ++i) EXPECT_EQ(dict->at("w." + std::to_string(i)), ls[i]);
  auto types = ReadTypeLayouts(reprinted);
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  EXPECT_EQ(*types, ls);
}

TEST(LayoutAttrTest, NoAttributeMeansNoLayouts) {
  auto d = ReadTensorLayouts("module {\n}\n");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->empty());
}

}  // namespace
}  // namespace vt
