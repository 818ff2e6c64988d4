#include <gtest/gtest.h>

#include <cstring>

#include "kernels/gemm/f32_gemm_pack.h"
#include "kernels/gemm/f32_gemm_table.h"
#include "passes/test_model_builder.h"
#include "vtensor/graph/tensor_meta.h"
#include "vtensor/layout/layout_pack.h"
#include "vtensor/layout/layout_presets.h"
#include "vtensor/passes/capture.h"
#include "vtensor/passes/layout_plan.h"
#include "vtensor/passes/pass.h"

namespace vt {
namespace {

// Y = MatMul(X[3,K], W[K,N]).
Expected<Model> MatMulModel(int64_t k, int64_t n) {
  testing::OnnxBuilder b;
  b.Input("X", {3, k}).Output("Y", {3, n}).RandomInit("W", {k, n}, 3);
  b.Node("MatMul", {"X", "W"}, {"Y"});
  return b.Import();
}

// Y = Conv(X[1,C,8,8], W[M,C,kh,kw]) with `pads` on every side.
Expected<Model> ConvModel(int64_t m, int64_t c, int64_t k, int64_t pad) {
  testing::OnnxBuilder b;
  const int64_t o = 8 + 2 * pad - k + 1;
  b.Input("X", {1, c, 8, 8}).Output("Y", {1, m, o, o}).RandomInit("W", {m, c, k, k}, 5);
  auto& n = b.Node("Conv", {"X", "W"}, {"Y"});
  testing::OnnxBuilder::AttrInts(n, "pads", {pad, pad, pad, pad});
  return b.Import();
}

Layout AssignedLayout(const Model& m, const std::string& name) {
  auto l = TensorLayout(m.graph->values.at(name));
  EXPECT_TRUE(l.ok() && l->has_value()) << name;
  return l.ok() && l->has_value() ? **l : Layout();
}

TEST(LayoutAssignmentTest, MatMulWeightGetsTheTargetsGemmPanels) {
  for (const char* t : {"x86_64-avx512", "x86_64-avx2", "x86_64-baseline", "iree-llvm-cpu"}) {
    auto m = MatMulModel(20, 37);
    ASSERT_TRUE(m.ok());
    ASSERT_TRUE(RunPasses(*m, t).ok()) << t;
    const int64_t nr = TargetGemmPanelWidth(**FindTarget(t));
    EXPECT_EQ(AssignedLayout(*m, "W"), *GemmColumnPanels(20, 37, nr)) << t;
    EXPECT_EQ(TensorLayoutOrigin(m->graph->values.at("W")), "layout-assignment");
  }
  EXPECT_EQ(TargetGemmPanelWidth(**FindTarget("x86_64-avx512")), 32);
  EXPECT_EQ(TargetGemmPanelWidth(**FindTarget("x86_64-avx2")), 16);
  EXPECT_EQ(TargetGemmPanelWidth(**FindTarget("iree-llvm-cpu")), 16);
}

// With the native target the layout is exactly what the runtime's MatMul kernel packs: the
// panel width of the default kernel and, byte for byte, the same panels.
TEST(LayoutAssignmentTest, NativeLayoutBytesEqualTheRuntimesPrepackedPanels) {
  const int64_t K = 19, N = 45;
  auto m = MatMulModel(K, N);
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(RunPasses(*m, "native").ok());
  const Layout l = AssignedLayout(*m, "W");
  const auto& kernel = kernels::DefaultF32GemmKernel();
  EXPECT_EQ(l, *GemmColumnPanels(K, N, static_cast<int64_t>(kernel.nr)));
  const Tensor& w = m->graph->initializers.at("W");
  auto bytes = PackFloats(w.data<float>(), l);
  ASSERT_TRUE(bytes.ok());
  kernels::F32Panels p = kernels::MakeF32PanelsFromKn(kernel.nr, K, N, w.data<float>(), N);
  ASSERT_EQ(bytes->size(), p.data.size() * 4);
  EXPECT_EQ(std::memcmp(bytes->data(), p.data.data(), bytes->size()), 0);
}

TEST(LayoutAssignmentTest, ConvFilterGetsTheRuntimesAPanels) {
  // C = 3 < 16: rows packed in (c, kh, kw) order; M = 10 rows in panels of the kernel's MR.
  auto m = ConvModel(10, 3, 3, 1);
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(RunPasses(*m, "native").ok());
  const Layout l = AssignedLayout(*m, "W");
  const auto& row = kernels::F32GemmKernelForM(10);
  const Tensor& w = m->graph->initializers.at("W");
  auto bytes = PackFloats(w.data<float>(), l);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  kernels::F32Panels p = kernels::MakeF32PanelsFromMk(row.mr, 10, 27, w.data<float>(), 27);
  ASSERT_EQ(bytes->size(), p.data.size() * 4);
  EXPECT_EQ(std::memcmp(bytes->data(), p.data.data(), bytes->size()), 0);
}

TEST(LayoutAssignmentTest, ConvFilterWithManyChannelsIsTapMajor) {
  auto m = ConvModel(5, 16, 3, 1);
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(RunPasses(*m, "native").ok());
  const Layout l = AssignedLayout(*m, "W");
  const auto& row = kernels::F32GemmKernelForM(5);
  const Tensor& w = m->graph->initializers.at("W");
  // The runtime permutes W[m][c][tap] to [m][tap][c] and packs A panels from that.
  std::vector<float> perm(5 * 16 * 9);
  for (int mm = 0; mm < 5; ++mm)
    for (int c = 0; c < 16; ++c)
      for (int t = 0; t < 9; ++t) perm[(mm * 9 + t) * 16 + c] = w.data<float>()[(mm * 16 + c) * 9 + t];
  kernels::F32Panels p = kernels::MakeF32PanelsFromMk(row.mr, 5, 144, perm.data(), 144);
  auto bytes = PackFloats(w.data<float>(), l);
  ASSERT_TRUE(bytes.ok());
  ASSERT_EQ(bytes->size(), p.data.size() * 4);
  EXPECT_EQ(std::memcmp(bytes->data(), p.data.data(), bytes->size()), 0);
}

TEST(LayoutAssignmentTest, DepthwiseAndIreeConvKeepTheStoredForm) {
  testing::OnnxBuilder b;
  b.Input("X", {1, 4, 8, 8}).Output("Y", {1, 4, 6, 6}).RandomInit("W", {4, 1, 3, 3});
  auto& n = b.Node("Conv", {"X", "W"}, {"Y"});
  testing::OnnxBuilder::AttrI(n, "group", 4);
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(RunPasses(*m, "x86_64-avx512").ok());
  EXPECT_FALSE(HasTensorLayout(m->graph->values.at("W")));
  auto c = ConvModel(10, 3, 3, 1);
  ASSERT_TRUE(RunPasses(*c, "iree-llvm-cpu").ok());
  EXPECT_FALSE(HasTensorLayout(c->graph->values.at("W")));
}

TEST(LayoutAssignmentTest, NoTargetInventsNoLayout) {
  auto m = MatMulModel(8, 8);
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(RunPasses(*m, "").ok());
  for (const auto& [name, spec] : m->graph->values) EXPECT_FALSE(HasTensorLayout(spec)) << name;
}

TEST(LayoutAssignmentTest, NeverOverridesACapturedLayout) {
  auto m = MatMulModel(8, 8);
  ASSERT_TRUE(m.ok());
  auto pinned = GemmColumnPanels(8, 8, 4);
  SetTensorLayout(m->graph->values["W"], *pinned, kLayoutOriginCapture);
  ASSERT_TRUE(RunPasses(*m, "x86_64-avx512").ok());
  EXPECT_EQ(AssignedLayout(*m, "W"), *pinned);
  EXPECT_EQ(TensorLayoutOrigin(m->graph->values.at("W")), "capture");
}

TEST(LayoutAssignmentTest, CompiledEntryForTheArchitectureWins) {
  auto m = MatMulModel(64, 8);
  ASSERT_TRUE(m.ok());
  auto feed = GemmColumnPanels(64, 8, 8);
  SetCompiledLayout(m->graph->values["W"], "x86_64-avx2", *feed);
  ASSERT_TRUE(RunPasses(*m, "x86_64-avx2").ok());
  EXPECT_EQ(AssignedLayout(*m, "W"), *feed);
  EXPECT_EQ(TensorLayoutOrigin(m->graph->values.at("W")), "capture");
  // Another architecture's entry is ignored.
  auto m2 = MatMulModel(64, 8);
  SetCompiledLayout(m2->graph->values["W"], "x86_64-avx2", *feed);
  ASSERT_TRUE(RunPasses(*m2, "x86_64-avx512").ok());
  EXPECT_EQ(AssignedLayout(*m2, "W"), *GemmColumnPanels(64, 8, 32));
}

TEST(LayoutAssignmentTest, GemmTransBWeightGetsTransposedPanels) {
  testing::OnnxBuilder b;
  b.Input("X", {2, 12}).Output("Y", {2, 5}).RandomInit("W", {5, 12});
  auto& n = b.Node("Gemm", {"X", "W"}, {"Y"});
  testing::OnnxBuilder::AttrI(n, "transB", 1);
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(RunPasses(*m, "x86_64-avx2").ok());
  EXPECT_EQ(AssignedLayout(*m, "W"), *GemmColumnPanels(12, 5, 16)->Transpose({1, 0}));
}

TEST(LayoutPlanTest, ListsEveryLaidOutWeightOnce) {
  auto m = ConvModel(10, 3, 3, 1);
  ASSERT_TRUE(m.ok());
  auto none = CollectPlannedLayouts(*m);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  ASSERT_TRUE(RunPasses(*m, "x86_64-avx2").ok());
  auto plan = CollectPlannedLayouts(*m);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->size(), 1u);
  EXPECT_EQ((*plan)[0].value, "W");
  EXPECT_EQ((*plan)[0].identity, "W");
  EXPECT_EQ((*plan)[0].origin, "layout-assignment");
  EXPECT_EQ((*plan)[0].layout, AssignedLayout(*m, "W"));
}

TEST(CaptureTest, RecordsEncodingAndIdentityOfEveryInitializer) {
  auto m = MatMulModel(4, 4);
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(CaptureTensorMeta(*m).ok());
  const TensorSpec& w = m->graph->values.at("W");
  EXPECT_EQ(TensorEncoding(w), Encoding::kF32);
  EXPECT_EQ(w.identity(), "W");
  EXPECT_FALSE(HasTensorLayout(w));  // dense row-major: nothing to pin
}

TEST(FoldInitializersTest, KeepsMetadataAndNamesFoldedConstants) {
  testing::OnnxBuilder b;
  b.Input("X", {2, 3}).Output("Y", {2, 3}).RandomInit("A", {2, 3});
  b.Node("Relu", {"A"}, {"R"});
  b.Node("Add", {"X", "R"}, {"Y"});
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  m->graph->values["R"].SetMeta("test.key", std::string("kept"));
  ASSERT_TRUE(MakeFoldInitializersPass()->Run(*m, PassContext{}).ok());
  ASSERT_TRUE(m->graph->initializers.count("R"));
  const TensorSpec& r = m->graph->values.at("R");
  EXPECT_EQ(r.identity(), "R");
  EXPECT_EQ(TensorEncoding(r), Encoding::kF32);
  ASSERT_NE(r.FindMeta("test.key"), nullptr);
  EXPECT_EQ(std::get<std::string>(*r.FindMeta("test.key")), "kept");
}

}  // namespace
}  // namespace vt
