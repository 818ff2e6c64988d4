// Export of a captured compiled entry: StableHLO parameters carry the entry's bytes verbatim.
#include "vtensor/export/stablehlo_export.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "format/compiled_model_test_util.h"
#include "vtensor/passes/capture.h"
#include "vtensor/graph/tensor_meta.h"
#include "vtensor/layout/layout_presets.h"
#include "vtensor/passes/pass.h"

namespace vt {
namespace {

class CaptureCompiledTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir("capture");
    cm_ = testing::CompiledMatMulModel(dir_);
    ASSERT_TRUE(WriteCompiledModel(cm_, dir_ + "/model.onnx").ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
  CompiledModel cm_;
};

TEST_F(CaptureCompiledTest, LayoutAssignmentUsesTheFilesEntryAndExportBlitsItsBytes) {
  auto m = LoadModelForCompile(dir_ + "/model.onnx");
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(RunPasses(*m, "x86_64-avx512").ok());
  const TensorSpec& w = m->graph->values.at("W");
  EXPECT_EQ(**TensorLayout(w), *GemmColumnPanels(64, 40, 16));
  EXPECT_EQ(TensorLayoutOrigin(w), kLayoutOriginCapture);
  StableHloOptions o;
  o.externalize = true;
  o.externalize_above = 0;
  auto r = ExportStableHlo(*m, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->params.size(), 1u);
  const auto& entry = cm_.ext.compiled_tensors(0);
  ASSERT_EQ(entry.source_name(), "W");
  const std::string& payload = entry.value().raw_data();
  ASSERT_EQ(r->params[0].bytes.size(), payload.size());
  EXPECT_EQ(std::memcmp(r->params[0].bytes.data(), payload.data(), payload.size()), 0);
}

}  // namespace
}  // namespace vt
