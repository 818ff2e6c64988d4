// The kernel rows an operator picks follow its session's ISA level (--arch), never above it.
#include "ops/common/row_kernels.h"

#include <gtest/gtest.h>

#include <cstring>

#include "vtensor/graph/graph.h"

namespace vt::ops {
namespace {

const kernels::F32GemmKernel& RowForLevel(IsaLevel level) {
  static const Graph graph;
  static const Node node;
  WeightProvider provider(level, WeightProfile::kExact, nullptr);
  const KernelInit init{node, graph, &provider};
  return F32GemmRowFor(init);
}

kernels::F32ConvActFn ActRowForLevel(IsaLevel level) {
  static const Graph graph;
  static const Node node;
  WeightProvider provider(level, WeightProfile::kExact, nullptr);
  const KernelInit init{node, graph, &provider};
  return F32ConvActRowFor(init);
}

TEST(RowKernelsTest, F32GemmRowFollowsTheSessionLevel) {
  for (const IsaInfo& level : IsaLevels()) {
    if (!IsaSupported(level.level)) continue;
    const kernels::F32GemmKernel& row = RowForLevel(level.level);
    EXPECT_TRUE(row.supported()) << row.name;
    // The process's default row where the session runs at the host's level, else that level's
    // first row.
    if (level.level == HostIsa()) {
      EXPECT_EQ(&row, &kernels::DefaultF32GemmKernel()) << row.name;
    } else {
      EXPECT_STREQ(row.isa, level.kernel_isa) << row.name;
    }
  }
}

TEST(RowKernelsTest, AttentionRowIsAtMostTheSessionLevel) {
  static const Graph graph;
  static const Node node;
  for (const IsaInfo& level : IsaLevels()) {
    if (!IsaSupported(level.level)) continue;
    WeightProvider provider(level.level, WeightProfile::kExact, nullptr);
    const kernels::AttentionKernel& row = AttentionRowFor(KernelInit{node, graph, &provider});
    EXPECT_LE(kernels::KernelIsaLevel(row.isa), kernels::KernelIsaLevel(level.kernel_isa))
        << row.name << " in a session at " << level.architecture;
  }
}

// The conv activation rows are AVX-512 and portable: an AVX2 or baseline session runs the
// portable one.
TEST(RowKernelsTest, ConvActivationRowFollowsTheSessionLevel) {
  EXPECT_EQ(ActRowForLevel(HostIsa()), kernels::DefaultF32ConvActKernel().fn);
  if (IsaSupported(IsaLevel::kAvx2)) EXPECT_EQ(ActRowForLevel(IsaLevel::kAvx2), &kernels::f32_conv_act_scalar);
  EXPECT_EQ(ActRowForLevel(IsaLevel::kBaseline), &kernels::f32_conv_act_scalar);
}

}  // namespace
}  // namespace vt::ops
