#include "vtensor/passes/capture.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "format/compiled_model_test_util.h"
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

TEST_F(CaptureCompiledTest, CompiledEntriesAreAttachedPerArchitecture) {
  auto m = LoadModelForCompile(dir_ + "/model.onnx");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const TensorSpec& w = m->graph->values.at("W");
  EXPECT_EQ(CompiledArchitectures(w), (std::vector<std::string>{"x86_64-avx2", "x86_64-avx512"}));
  EXPECT_EQ(**CompiledLayout(w, "x86_64-avx512"), *GemmColumnPanels(64, 40, 16));
  // Two avx2 entries: the first in file order (q4_0 kernel-feed) is recorded.
  auto q4 = BlockQuantizedWeight(40, 64, Encoding::kQ4_0, BlockOrder::kInputBlockMajor);
  EXPECT_EQ(**CompiledLayout(w, "x86_64-avx2"), *q4->Transpose({1, 0}));
  EXPECT_EQ(TensorEncoding(w), Encoding::kF32);
  EXPECT_FALSE(HasTensorLayout(w));  // capture pins no layout for a dense weight
}

// The file's compiled entry for the target wins over the target's own preference, and the
// exported parameter is byte for byte the compiled payload stored in the file.
TEST_F(CaptureCompiledTest, MalformedEntriesAreSkipped) {
  auto m = LoadModelForCompile(dir_ + "/model.onnx");
  ASSERT_TRUE(m.ok());
  vtensor::ModelExtension ext = cm_.ext;
  ext.mutable_compiled_tensors(0)->set_source_name("missing");
  ext.mutable_compiled_tensors(1)->set_device(99);
  Model fresh = *m;
  fresh.graph = std::make_shared<Graph>(*m->graph);
  fresh.graph->values["W"] = TensorSpec(fresh.graph->values["W"].type());
  EXPECT_EQ(AttachCompiledEntries(fresh, ext), 1u);  // only the external q8_0 entry is valid
}

}  // namespace
}  // namespace vt
