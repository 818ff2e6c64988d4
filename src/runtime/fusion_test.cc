#include "vtensor/runtime/fusion.h"

#include <gtest/gtest.h>

#include <cmath>

#include "vtensor/runtime/session.h"

namespace vt {
namespace {

Node Op(const std::string& op, std::vector<std::string> in, std::string out, int64_t opset = 11) {
  Node n;
  n.op_type = op;
  n.name = op + "_" + out;
  n.opset = opset;
  n.inputs = std::move(in);
  n.outputs = {std::move(out)};
  return n;
}

// y = Div(Mul(x, Clip(Add(x, three), zero, six)), six); `extra_use` adds a second consumer.
Model HardSwishModel(bool extra_use, float three = 3.0f) {
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  g->initializers["three"] = Tensor::ScalarF32(three);
  g->initializers["zero"] = Tensor::ScalarF32(0.0f);
  g->initializers["six"] = Tensor::ScalarF32(6.0f);
  g->nodes.push_back(Op("Add", {"x", "three"}, "a"));
  g->nodes.push_back(Op("Clip", {"a", "zero", "six"}, "c"));
  g->nodes.push_back(Op("Mul", {"x", "c"}, "m"));
  g->nodes.push_back(Op("Div", {"m", "six"}, "y"));
  g->outputs.push_back({"y", {}});
  if (extra_use) {
    g->nodes.push_back(Op("Neg", {"c"}, "z"));
    g->outputs.push_back({"z", {}});
  }
  Model m;
  m.ir_version = 7;
  m.opsets[""] = 11;
  m.graph = g;
  return m;
}

TEST(FusionTest, HardSwishPatternBecomesOneNodeWithSameResults) {
  Tensor x = Tensor::FromF32({-5.0f, -3.0f, -1.5f, 0.0f, 0.25f, 2.0f, 3.0f, 7.5f}, {8});
  SessionOptions unfused;
  unfused.fuse = false;
  auto ref = Session::Create(HardSwishModel(false), unfused);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  auto want = (*ref)->Run({Value(x)});
  ASSERT_TRUE(want.ok()) << want.status().ToString();

  Model m = HardSwishModel(false);
  EXPECT_EQ(FuseHardSwish(*m.graph), 1u);
  ASSERT_EQ(m.graph->nodes.size(), 1u);
  EXPECT_EQ(m.graph->nodes[0].op_type, "HardSwish");
  auto fused = Session::Create(std::move(m));
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  auto got = (*fused)->Run({Value(x)});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int i = 0; i < 8; ++i)
    EXPECT_NEAR((*got)[0].tensor().data<float>()[i], (*want)[0].tensor().data<float>()[i], 1e-6);
}

TEST(FusionTest, KeepsPatternWhenIntermediateIsUsedElsewhereOrConstantDiffers) {
  Model shared = HardSwishModel(true);
  EXPECT_EQ(FuseHardSwish(*shared.graph), 0u);
  EXPECT_EQ(shared.graph->nodes.size(), 5u);
  Model other = HardSwishModel(false, 2.5f);
  EXPECT_EQ(FuseHardSwish(*other.graph), 0u);
}

}  // namespace
}  // namespace vt
