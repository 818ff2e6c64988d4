#include "vtensor/export/json_export.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "export/export_test_util.h"
#include "vtensor/graph/tensor_meta.h"
#include "vtensor/passes/capture.h"
#include "vtensor/passes/pass.h"

namespace vt {
namespace {

Expected<std::string> Export(const std::string& target) {
  auto m = testing::SmallConvNet().Import();
  if (!m.ok()) return m.status();
  VT_RETURN_IF_ERROR(CaptureTensorMeta(*m));
  VT_RETURN_IF_ERROR(RunPasses(*m, target));
  JsonExportOptions o;
  o.target = target;
  return ExportJson(*m, o);
}

TEST(JsonExportTest, WithoutTargetMatchesTheGoldenFileAndHasNoLayout) {
  auto text = Export("");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(text->find("\"layout\""), std::string::npos);
  testing::ExpectGolden("small_convnet.json", *text);
}

TEST(JsonExportTest, LayoutsAreTypedValuesThatRebuildTheLayout) {
  auto m = testing::SmallConvNet().Import();
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(RunPasses(*m, "x86_64-avx2").ok());
  auto text = ExportJson(*m, {"x86_64-avx2"});
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto doc = nlohmann::json::parse(*text);
  EXPECT_EQ(doc["target"], "x86_64-avx2");
  int checked = 0;
  for (const auto& init : doc["graph"]["initializers"]) {
    if (!init.contains("layout")) continue;
    const auto& l = init["layout"];
    EXPECT_TRUE(l["levels"].is_array());
    EXPECT_TRUE(l["block_elems"].is_number_integer());
    EXPECT_TRUE(l["shape"].is_array());
    auto facts = LayoutFactsFromJson(l.dump());
    ASSERT_TRUE(facts.ok()) << facts.status().ToString();
    // The text form is carried too; drop it to show the typed fields alone suffice.
    facts->text.clear();
    auto rebuilt = LayoutFromFacts(*facts);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
    auto meta = TensorLayout(m->graph->values.at(init["name"].get<std::string>()));
    ASSERT_TRUE(meta.ok() && meta->has_value());
    EXPECT_EQ(*rebuilt, **meta) << init["name"];
    ++checked;
  }
  EXPECT_EQ(checked, 2);  // the conv filter and the MatMul weight
}

TEST(JsonExportTest, NodesValuesAndShapesAreListed) {
  auto text = Export("");
  ASSERT_TRUE(text.ok());
  auto doc = nlohmann::json::parse(*text);
  const auto& g = doc["graph"];
  ASSERT_EQ(g["nodes"].size(), 7u);
  EXPECT_EQ(g["nodes"][0]["op_type"], "Conv");
  EXPECT_EQ(g["nodes"][0]["attributes"]["pads"], nlohmann::json({1, 1, 1, 1}));
  EXPECT_EQ(g["inputs"][0]["shape"], nlohmann::json({1, 3, 8, 8}));
  EXPECT_EQ(g["initializers"][0]["encoding"], "f32");
}

TEST(JsonExportTest, MalformedLayoutJsonNamesTheField) {
  auto f = LayoutFactsFromJson("{\"version\": 1}");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("'text'"), std::string::npos);
  EXPECT_FALSE(LayoutFactsFromJson("not json").ok());
}

}  // namespace
}  // namespace vt
