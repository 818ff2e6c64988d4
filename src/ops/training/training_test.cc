// Adagrad / Momentum / Adam update rules on hand-computed values, and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrFloat;
using testing::AttrString;
using testing::F32;
using testing::I64;
using testing::Values;

Expected<std::vector<Value>> RunTraining(const std::string& op, const std::vector<Attribute>& attrs,
                                         const std::vector<Value>& inputs, size_t n_out) {
  Node node;
  node.name = "opt";
  node.op_type = op;
  node.domain = "ai.onnx.preview.training";
  node.opset = 1;
  for (size_t i = 0; i < inputs.size(); ++i) node.inputs.push_back("in" + std::to_string(i));
  for (size_t i = 0; i < n_out; ++i) node.outputs.push_back("out" + std::to_string(i));
  for (const auto& a : attrs) node.attrs[a.name] = a;
  const KernelFactory* f = KernelRegistry::Global().Find(node.domain, op, 1);
  if (f == nullptr) return NotFound(op);
  Graph g;
  VT_ASSIGN_OR_RETURN(auto k, (*f)(KernelInit{node, g}));
  std::vector<const Value*> ins;
  ins.reserve(inputs.size());
  for (const auto& v : inputs) ins.push_back(&v);
  std::vector<Value> outs(n_out);
  KernelContext ctx(node, ins, &outs, nullptr, 1);
  VT_RETURN_IF_ERROR(k->Compute(ctx));
  return outs;
}

TEST(TrainingTest, Adagrad) {
  auto r = RunTraining("Adagrad", {AttrFloat("decay_factor", 0.1f), AttrFloat("epsilon", 1e-5f),
                                   AttrFloat("norm_coefficient", 0.001f)},
                       {F32({}, {0.1}), I64({}, {0}), F32({1}, {1}), F32({1}, {-1}), F32({1}, {2})}, 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const double g = -1 + 0.001, h = 2 + g * g;
  EXPECT_NEAR(Values((*r)[0].tensor())[0], 1 - 0.1 * g / (std::sqrt(h) + 1e-5), 1e-6);
  EXPECT_NEAR(Values((*r)[1].tensor())[0], h, 1e-6);
}

TEST(TrainingTest, MomentumStandardAndNesterov) {
  for (const char* mode : {"standard", "nesterov"}) {
    auto r = RunTraining("Momentum", {AttrFloat("alpha", 0.9f), AttrFloat("beta", 0.1f),
                                      AttrFloat("norm_coefficient", 0.0f), AttrString("mode", mode)},
                         {F32({}, {0.5}), I64({}, {3}), F32({2}, {1, 2}), F32({2}, {0.5, -1}),
                          F32({2}, {1, 1})},
                         2);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const double v0 = 0.9f * 1 + 0.1f * 0.5;
    const double x0 = std::string(mode) == "standard" ? 1 - 0.5 * v0 : 1 - 0.5 * (0.5 + 0.9f * v0);
    EXPECT_NEAR(Values((*r)[1].tensor())[0], v0, 1e-6) << mode;
    EXPECT_NEAR(Values((*r)[0].tensor())[0], x0, 1e-6) << mode;
  }
}

TEST(TrainingTest, AdamBiasCorrection) {
  auto r = RunTraining("Adam", {AttrFloat("alpha", 0.9f), AttrFloat("beta", 0.99f),
                                AttrFloat("epsilon", 1e-6f)},
                       {F32({}, {0.01}), I64({}, {2}), F32({1}, {1}), F32({1}, {0.5}),
                        F32({1}, {0.1}), F32({1}, {0.2})},
                       3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const double a = 0.9f, b = 0.99f;
  const double v = a * 0.1f + (1 - a) * 0.5, h = b * 0.2f + (1 - b) * 0.25;
  const double lr = 0.01f * std::sqrt(1 - b * b) / (1 - a * a);
  EXPECT_NEAR(Values((*r)[0].tensor())[0], 1 - lr * v / (std::sqrt(h) + 1e-6), 1e-6);
  EXPECT_NEAR(Values((*r)[1].tensor())[0], v, 1e-6);
  EXPECT_NEAR(Values((*r)[2].tensor())[0], h, 1e-6);
}

TEST(TrainingTest, MismatchedGroupsAreErrors) {
  auto r = RunTraining("Adagrad", {}, {F32({}, {0.1}), I64({}, {0}), F32({2}, {1, 2}),
                                       F32({1}, {1}), F32({2}, {1, 1})},
                       2);
  EXPECT_FALSE(r.ok());
  auto n = RunTraining("Momentum", {AttrString("mode", "heavy")},
                       {F32({}, {0.1}), I64({}, {0}), F32({1}, {1}), F32({1}, {1}), F32({1}, {1})}, 2);
  EXPECT_FALSE(n.ok());
  auto c = RunTraining("Adam", {}, {F32({}, {0.1}), I64({}, {0}), F32({1}, {1})}, 1);
  EXPECT_FALSE(c.ok());
}

}  // namespace
}  // namespace vt::ops
