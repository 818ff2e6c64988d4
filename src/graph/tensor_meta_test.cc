#include "vtensor/graph/tensor_meta.h"

#include <gtest/gtest.h>

#include "vtensor/layout/layout_presets.h"

namespace vt {
namespace {

TEST(TensorMetaTest, UnsetAccessorsAreEmpty) {
  TensorSpec s;
  EXPECT_FALSE(TensorEncoding(s).has_value());
  auto l = TensorLayout(s);
  ASSERT_TRUE(l.ok());
  EXPECT_FALSE(l->has_value());
  EXPECT_FALSE(HasTensorLayout(s));
  EXPECT_EQ(TensorLayoutOrigin(s), "");
  EXPECT_FALSE(TensorAliasOf(s).has_value());
  EXPECT_TRUE(CompiledArchitectures(s).empty());
}

TEST(TensorMetaTest, LayoutRoundTripsStructurallyThroughTheMetadataMap) {
  auto panels = GemmColumnPanels(64, 40, 16);
  ASSERT_TRUE(panels.ok());
  TensorSpec s;
  SetTensorLayout(s, *panels, "layout-assignment");
  SetTensorEncoding(s, Encoding::kF32);
  // A copy (what every pass does) keeps everything.
  TensorSpec copy = s;
  auto l = TensorLayout(copy);
  ASSERT_TRUE(l.ok() && l->has_value());
  EXPECT_EQ(**l, *panels);
  EXPECT_EQ(TensorLayoutOrigin(copy), "layout-assignment");
  EXPECT_EQ(TensorEncoding(copy), Encoding::kF32);
}

TEST(TensorMetaTest, CompiledLayoutsAreKeyedByArchitecture) {
  auto feed = BlockQuantizedWeight(8, 64, Encoding::kQ4_0, BlockOrder::kInputBlockMajor);
  auto panels = GemmColumnPanels(64, 8, 32);
  ASSERT_TRUE(feed.ok() && panels.ok());
  TensorSpec s;
  SetCompiledLayout(s, "x86_64-avx512", *panels);
  SetCompiledLayout(s, "x86_64-avx2", *feed);
  EXPECT_EQ(CompiledArchitectures(s), (std::vector<std::string>{"x86_64-avx2", "x86_64-avx512"}));
  auto a = CompiledLayout(s, "x86_64-avx2");
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ(**a, *feed);
  EXPECT_EQ((*a)->block_order(), BlockOrder::kInputBlockMajor);
  auto none = CompiledLayout(s, "x86_64-baseline");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(TensorMetaTest, MalformedLayoutTextIsAnErrorNamingTheKey) {
  TensorSpec s;
  s.SetMeta(kMetaLayout, std::string("vt.layout.v1<[2,3"));
  auto l = TensorLayout(s);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("metadata vt.layout"), std::string::npos);
}

TEST(TensorMetaTest, AliasAndUnknownEncoding) {
  TensorSpec s;
  SetTensorAliasOf(s, "W");
  EXPECT_EQ(TensorAliasOf(s), "W");
  s.SetMeta(kMetaEncoding, std::string("not-an-encoding"));
  EXPECT_FALSE(TensorEncoding(s).has_value());
}

}  // namespace
}  // namespace vt
