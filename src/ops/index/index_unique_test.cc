#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

std::vector<std::vector<double>> RunUnique(const Tensor& x, std::vector<Attribute> attrs) {
  OpCall c{"Unique", 11, std::move(attrs), {x}, {}, 4};
  auto r = c.Run();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::vector<double>> out;
  for (const auto& v : *r) out.push_back(Values(v.tensor()));
  return out;
}

TEST(UniqueOp, SpecExamples) {
  auto r1 = RunUnique(F32({6}, {2, 1, 1, 3, 4, 3}), {AttrInt("sorted", 0)});
  EXPECT_EQ(r1[0], (std::vector<double>{2, 1, 3, 4}));
  EXPECT_EQ(r1[1], (std::vector<double>{0, 1, 3, 4}));
  EXPECT_EQ(r1[2], (std::vector<double>{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(r1[3], (std::vector<double>{1, 2, 2, 1}));
  auto r2 = RunUnique(F32({2, 2}, {1, 3, 2, 3}), {});
  EXPECT_EQ(r2[0], (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(r2[1], (std::vector<double>{0, 2, 1}));
  EXPECT_EQ(r2[2], (std::vector<double>{0, 2, 1, 2}));
  EXPECT_EQ(r2[3], (std::vector<double>{1, 1, 2}));
  auto r4 = RunUnique(F32({2, 4, 2}, {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1}),
                      {AttrInt("axis", 1)});
  EXPECT_EQ(r4[0], (std::vector<double>{0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1}));
  EXPECT_EQ(r4[1], (std::vector<double>{1, 0, 2}));
  EXPECT_EQ(r4[2], (std::vector<double>{1, 0, 2, 0}));
  EXPECT_EQ(r4[3], (std::vector<double>{2, 1, 1}));
}

TEST(UniqueOp, StringsAndEmpty) {
  Tensor s = Tensor::Empty(DType::kString, {3});
  s.mutable_data<std::string>()[0] = "b";
  s.mutable_data<std::string>()[1] = "a";
  s.mutable_data<std::string>()[2] = "b";
  OpCall c{"Unique", 11, {}, {s}, {}, 4};
  auto r = c.Run();
  ASSERT_TRUE(r.ok());
  const Tensor& y = (*r)[0].tensor();
  ASSERT_EQ(y.numel(), 2);
  EXPECT_EQ(y.data<std::string>()[0], "a");
  EXPECT_EQ(Values((*r)[3].tensor()), (std::vector<double>{1, 2}));
  auto e = RunUnique(Iota({0}), {});
  EXPECT_TRUE(e[0].empty());
}

}  // namespace
}  // namespace vt::ops::testing
