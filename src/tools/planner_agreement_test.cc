// One planner: for every vtensor CPU target, the layout the
// layout-assignment pass records for a weight (what exporters serialize) equals the layout of
// the compiled entry `vtensor compile` writes for that device, which is the form a session on
// that device packs. Checked on a model with every packed weight kind, and a filter Winograd
// takes on AVX-512 and AVX2, which has a layout in neither there.
#include <fmt/core.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <map>

#include "passes/test_model_builder.h"
#include "tools/compile_model.h"
#include "vtensor/base/file.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/graph/tensor_meta.h"
#include "vtensor/passes/capture.h"
#include "vtensor/passes/layout_plan.h"
#include "vtensor/passes/pass.h"

namespace vt {
namespace {

std::string WriteTestModel(const std::string& dir) {
  testing::OnnxBuilder b;
  b.Input("X", {1, 16, 8, 8}).Output("Y", {1, 10});
  b.RandomInit("Ww", {16, 16, 3, 3}, 6);   // Winograd conv: no layout, no entry
  b.RandomInit("Wc", {12, 16, 3, 3}, 1);   // tap-major conv
  b.RandomInit("Wp", {20, 12, 1, 1}, 2);   // pointwise conv
  b.RandomInit("Wg", {8, 5, 3, 3}, 3);     // grouped conv, 4 groups of 2 rows
  b.RandomInit("Wm", {20, 33}, 4);         // MatMul B [K, N]
  b.RandomInit("Wt", {10, 33}, 5);         // Gemm B with transB = 1: [N, K]
  auto& c0 = b.Node("Conv", {"X", "Ww"}, {"c0"});
  testing::OnnxBuilder::AttrInts(c0, "pads", {1, 1, 1, 1});
  auto& c1 = b.Node("Conv", {"c0", "Wc"}, {"c1"});
  testing::OnnxBuilder::AttrInts(c1, "pads", {1, 1, 1, 1});
  b.Node("Conv", {"c1", "Wp"}, {"c2"});
  b.Node("Slice", {"c2", "s0", "s1", "s2"}, {"c3"});
  b.InitI64("s0", {1}, {0}).InitI64("s1", {1}, {20}).InitI64("s2", {1}, {1});
  auto& g = b.Node("Conv", {"c3", "Wg"}, {"c4"});
  testing::OnnxBuilder::AttrI(g, "group", 4);
  testing::OnnxBuilder::AttrInts(g, "pads", {1, 1, 1, 1});
  b.Node("GlobalAveragePool", {"c4"}, {"p"});
  b.Node("Flatten", {"p"}, {"f"});
  b.Node("Pad", {"f", "pads"}, {"f20"});
  b.InitI64("pads", {4}, {0, 0, 0, 12});
  b.Node("MatMul", {"f20", "Wm"}, {"m"});
  auto& gm = b.Node("Gemm", {"m", "Wt"}, {"Y"});
  testing::OnnxBuilder::AttrI(gm, "transB", 1);
  std::string path = dir + "/planner.onnx";
  EXPECT_TRUE(WriteFileAtomic(path, b.proto().SerializeAsString()).ok());
  return path;
}

TEST(PlannerAgreementTest, PassLayoutsEqualCompiledEntries) {
  char tmpl[] = "/tmp/vt_planner_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string model = WriteTestModel(dir);
  for (IsaLevel isa : {IsaLevel::kAvx512, IsaLevel::kAvx2, IsaLevel::kBaseline}) {
    const std::string arch = IsaArchitecture(isa);
    SCOPED_TRACE(arch);
    auto m = LoadModelForCompile(model);
    ASSERT_TRUE(m.ok()) << m.status().message();
    ASSERT_TRUE(RunPasses(*m, arch).ok());
    auto planned = CollectPlannedLayouts(*m);
    ASSERT_TRUE(planned.ok()) << planned.status().message();
    std::map<std::string, Layout> plan;
    for (const auto& p : *planned) plan[p.value] = p.layout;

    CompileModelOptions o;
    o.devices = {isa};
    o.external_payload = false;
    const std::string out = fmt::format("{}/planner.{}.onnx", dir, arch);
    ASSERT_TRUE(CompileModel(model, out, o, nullptr).ok());
    auto cm = ReadCompiledModel(out);
    ASSERT_TRUE(cm.ok());
    std::map<std::string, Layout> compiled;
    for (const auto& e : cm->ext.compiled_tensors()) {
      const auto& t = cm->ext.struct_types(static_cast<int>(e.value().type_index()));
      auto l = LayoutFromProto(t.layout());
      ASSERT_TRUE(l.ok());
      compiled[e.source_name()] = *l;
    }
    // Every ungrouped weight kind is present on every target (grouped filters only where the
    // target's MR divides the rows per group), and both planners agree on each weight.
    for (const char* w : {"Wc", "Wp", "Wm", "Wt"}) ASSERT_TRUE(compiled.count(w)) << w;
    if (isa == IsaLevel::kAvx512) {
      EXPECT_TRUE(compiled.count("Wg"));
    }
    // On AVX-512 and AVX2 a transform made at session creation; on baseline x86-64 tap-major
    // panels.
    const size_t want_ww = isa == IsaLevel::kBaseline ? 1u : 0u;
    EXPECT_EQ(compiled.count("Ww"), want_ww);
    EXPECT_EQ(plan.count("Ww"), want_ww);
    ASSERT_EQ(plan.size(), compiled.size());
    for (const auto& [w, l] : compiled) {
      ASSERT_TRUE(plan.count(w)) << w;
      EXPECT_TRUE(plan.at(w) == l) << w;
    }
  }
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace vt
