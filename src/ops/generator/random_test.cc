// Random generators: seeded determinism within a session, value ranges and moments, dtype
// handling and bad attributes. Values themselves are implementation-defined.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrFloat;
using testing::AttrInt;
using testing::AttrInts;
using testing::F32;
using testing::OpCall;
using testing::Values;

// Creates one kernel and runs it `runs` times (the generator advances across runs).
std::vector<std::vector<double>> RunKernel(const std::string& op, const std::vector<Attribute>& attrs,
                                           const std::vector<Value>& inputs, int runs) {
  Node node;
  node.name = "r";
  node.op_type = op;
  node.opset = 17;
  for (size_t i = 0; i < inputs.size(); ++i) node.inputs.push_back("in" + std::to_string(i));
  node.outputs = {"out"};
  for (const auto& a : attrs) node.attrs[a.name] = a;
  const KernelFactory* f = KernelRegistry::Global().Find("", op, 17);
  EXPECT_NE(f, nullptr);
  Graph g;
  auto k = (*f)(KernelInit{node, g});
  EXPECT_TRUE(k.ok());
  std::vector<std::vector<double>> res;
  for (int i = 0; i < runs; ++i) {
    std::vector<const Value*> ins;
    ins.reserve(inputs.size());
    for (const auto& v : inputs) ins.push_back(&v);
    std::vector<Value> outs(1);
    KernelContext ctx(node, ins, &outs, nullptr, 1);
    Status st = (*k)->Compute(ctx);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok()) return res;
    res.push_back(Values(outs[0].tensor()));
  }
  return res;
}

TEST(RandomTest, SeededStreamsRepeatAcrossKernels) {
  std::vector<Attribute> attrs = {AttrInts("shape", {3, 5}), AttrFloat("seed", 7),
                                  AttrFloat("low", -2), AttrFloat("high", 3)};
  auto a = RunKernel("RandomUniform", attrs, {}, 2);
  auto b = RunKernel("RandomUniform", attrs, {}, 2);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a, b);           // same seed, same stream
  EXPECT_NE(a[0], a[1]);     // the stream advances between runs
  for (double v : a[0]) {
    EXPECT_GE(v, -2);
    EXPECT_LT(v, 3);
  }
}

TEST(RandomTest, NormalMoments) {
  auto r = RunKernel("RandomNormal",
                     {AttrInts("shape", {20000}), AttrFloat("mean", 1), AttrFloat("scale", 2),
                      AttrInt("dtype", 11)},
                     {}, 1);
  ASSERT_EQ(r.size(), 1u);
  double s = 0, s2 = 0;
  for (double v : r[0]) {
    s += v;
    s2 += v * v;
  }
  const double mean = s / 20000, var = s2 / 20000 - mean * mean;
  EXPECT_NEAR(mean, 1, 0.1);
  EXPECT_NEAR(std::sqrt(var), 2, 0.1);
}

TEST(RandomTest, BernoulliExtremesAndLike) {
  auto r = RunKernel("Bernoulli", {AttrInt("dtype", 9)}, {F32({4}, {0, 1, 0, 1})}, 3);
  for (const auto& v : r) EXPECT_EQ(v, std::vector<double>({0, 1, 0, 1}));
  auto like = RunKernel("RandomUniformLike", {}, {F32({2, 3}, {0, 0, 0, 0, 0, 0})}, 1);
  ASSERT_EQ(like.size(), 1u);
  EXPECT_EQ(like[0].size(), 6u);
}

TEST(RandomTest, MultinomialPicksTheOnlyPossibleClass) {
  auto r = RunKernel("Multinomial", {AttrInt("sample_size", 5), AttrInt("dtype", 7)},
                     {F32({2, 3}, {-1e30, 0, -1e30, 0, -1e30, -1e30})}, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], std::vector<double>({1, 1, 1, 1, 1, 0, 0, 0, 0, 0}));
}

TEST(RandomTest, BadAttributesAreErrors) {
  OpCall neg{"RandomUniform", 17, {AttrInts("shape", {-1})}, {}};
  EXPECT_FALSE(neg.Run().ok());
  OpCall huge{"RandomNormal", 17, {AttrInts("shape", {1 << 20, 1 << 20, 1 << 20})}, {}};
  EXPECT_FALSE(huge.Run().ok());
  OpCall int_dtype{"RandomUniform", 17, {AttrInts("shape", {2}), AttrInt("dtype", 7)}, {}};
  EXPECT_FALSE(int_dtype.Run().ok());
  OpCall bad_p{"Bernoulli", 17, {}, {F32({1}, {1.5})}};
  EXPECT_FALSE(bad_p.Run().ok());
}

}  // namespace
}  // namespace vt::ops
