#include <gtest/gtest.h>

#include "passes/test_model_builder.h"
#include "vtensor/passes/pass.h"

namespace vt {
namespace {

std::vector<std::string> Names(const std::vector<std::unique_ptr<Pass>>& p) {
  std::vector<std::string> out;
  out.reserve(p.size());
  for (const auto& x : p) out.push_back(x->name());
  return out;
}

TEST(PassRegistryTest, EveryTargetHasAPipelineEndingInLayoutAssignment) {
  for (const char* t : {"x86_64-avx512", "x86_64-avx2", "x86_64-baseline", "iree-llvm-cpu",
                        "native"}) {
    auto p = PassRegistry::Global().PipelineFor(t);
    ASSERT_TRUE(p.ok()) << t << ": " << p.status().ToString();
    EXPECT_EQ(Names(*p), (std::vector<std::string>{"transpose-elimination", "fold-initializers",
                                                   "layout-assignment"}))
        << t;
  }
}

TEST(PassRegistryTest, NoTargetPipelineNeverAssignsLayouts) {
  auto p = PassRegistry::Global().PipelineFor("");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(Names(*p), (std::vector<std::string>{"transpose-elimination", "fold-initializers"}));
}

TEST(PassRegistryTest, UnknownTargetListsTheKnownOnes) {
  auto p = PassRegistry::Global().PipelineFor("riscv");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("unknown target 'riscv'"), std::string::npos);
  EXPECT_NE(p.status().message().find("iree-llvm-cpu"), std::string::npos);
}

TEST(PassRegistryTest, AfterPassCallbackSeesEveryPassInOrder) {
  testing::OnnxBuilder b;
  b.Input("x", {2, 3}).Output("y", {2, 3}).RandomInit("w", {2, 3});
  b.Node("Add", {"x", "w"}, {"y"});
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  std::vector<std::string> seen;
  RunPassesOptions o;
  o.after_pass = [&](const char* name, const Model&) { seen.push_back(name); };
  ASSERT_TRUE(RunPasses(*m, "x86_64-avx2", o).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"transpose-elimination", "fold-initializers",
                                            "layout-assignment"}));
}

TEST(PassRegistryTest, RegisteredPassesAreListed) {
  auto names = PassRegistry::Global().PassNames();
  EXPECT_EQ(names, (std::vector<std::string>{
                       "constant-folding", "fold-initializers", "fold-shapes", "fuse-attention",
                       "fuse-conv", "fuse-dw-pw", "fuse-gelu", "fuse-hardswish", "fuse-layer-norm",
                       "fuse-matmul-bias", "fuse-resize-add", "fuse-rotary", "fuse-skip-norm",
                       "gemm-shapes",
                       "layout-assignment", "transpose-elimination"}));
}

}  // namespace
}  // namespace vt
