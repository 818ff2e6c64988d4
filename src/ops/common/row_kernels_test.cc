// The kernel rows an operator picks follow its session's ISA level (--arch), never above it.
#include "ops/common/row_kernels.h"

#include <gtest/gtest.h>

#include <cstring>

#include "vtensor/exec/kernel_description.h"
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
  if (IsaSupported(IsaLevel::kAvx2)) {
    EXPECT_EQ(ActRowForLevel(IsaLevel::kAvx2), &kernels::f32_conv_act_scalar);
  }
  EXPECT_EQ(ActRowForLevel(IsaLevel::kBaseline), &kernels::f32_conv_act_scalar);
}

// GEMMs whose B is not prepacked (two computed operands): rows of at most the session's level,
// the process's own choice at the host's level.
TEST(RowKernelsTest, UnpackedGemmRowsAreAtMostTheSessionLevel) {
  static const Graph graph;
  static const Node node;
  const size_t sizes[][2] = {{1, 1}, {3, 17}, {16, 64}, {64, 512}, {512, 4096}};
  for (const IsaInfo& level : IsaLevels()) {
    if (!IsaSupported(level.level)) continue;
    WeightProvider provider(level.level, WeightProfile::kExact, nullptr);
    const UnpackedGemmRows rows(KernelInit{node, graph, &provider});
    for (const auto& mn : sizes) {
      const kernels::F32GemmKernel& b = rows.ForB(mn[0], mn[1]);
      const kernels::F32GemmKernel& m = rows.ForM(mn[0]);
      for (const kernels::F32GemmKernel* k : {&b, &m}) {
        EXPECT_TRUE(k->supported()) << k->name;
        EXPECT_LE(kernels::KernelIsaLevel(k->isa), kernels::KernelIsaLevel(level.kernel_isa))
            << k->name << " in a session at " << level.architecture;
      }
      if (level.level == HostIsa()) {
        EXPECT_EQ(&b, &kernels::F32GemmKernelForUnpackedB(mn[0], mn[1]));
        EXPECT_EQ(&m, &kernels::F32GemmKernelForM(mn[0]));
      }
    }
  }
}

// A recurrent node's float GEMM, logistic and tanh: the AVX2 + FMA rows only in sessions at
// AVX2 or above (their fused multiply-adds round differently from a baseline CPU's).
TEST(RowKernelsTest, RecurrentRowsFollowTheSessionLevel) {
  Graph graph;
  Node node;
  node.name = "lstm";
  node.op_type = "LSTM";
  node.opset = 14;
  node.inputs = {"x", "w", "r"};
  node.outputs = {"y"};
  Attribute hidden;
  hidden.name = "hidden_size";
  hidden.type = Attribute::Type::kInt;
  hidden.i = 4;
  node.attrs[hidden.name] = hidden;
  const KernelFactory* f = KernelRegistry::Global().Find("", "LSTM", 14);
  ASSERT_NE(f, nullptr);
  const bool fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  for (const IsaInfo& level : IsaLevels()) {
    if (!IsaSupported(level.level)) continue;
    WeightProvider provider(level.level, WeightProfile::kExact, nullptr);
    auto kernel = (*f)(KernelInit{node, graph, &provider});
    ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
    const auto* d = dynamic_cast<const KernelDescription*>(kernel->get());
    ASSERT_NE(d, nullptr);
    const bool avx2 = level.level != IsaLevel::kBaseline && fma;
    EXPECT_EQ(d->Describe(), avx2 ? "float rows avx2_fma" : "float rows portable")
        << "a session at " << level.architecture;
  }
}

}  // namespace
}  // namespace vt::ops
