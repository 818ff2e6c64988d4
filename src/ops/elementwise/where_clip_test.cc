#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::OpCall;

TEST(Where, BroadcastsThreeWaysIncludingStrings) {
  Tensor c = testing::MakeTensor(DType::kBool, {2, 1}, {1, 0});
  Tensor x = Tensor::Empty(DType::kString, {3});
  for (int i = 0; i < 3; ++i) x.mutable_data<std::string>()[i] = "x" + std::to_string(i);
  Tensor y = Tensor::Empty(DType::kString, {});
  *y.mutable_data<std::string>() = "y";
  Tensor z = testing::RunOne({"Where", 16, {}, {c, x, y}});
  ASSERT_EQ(z.shape(), (Shape{2, 3}));
  const std::string* p = z.data<std::string>();
  EXPECT_EQ(std::vector<std::string>(p, p + 6),
            (std::vector<std::string>{"x0", "x1", "x2", "y", "y", "y"}));
  Tensor zi = testing::RunOne(
      {"Where", 16, {}, {c, testing::I64({1, 2}, {1, 2}), testing::I64({2, 1}, {7, 8})}});
  EXPECT_EQ(testing::Values(zi), (std::vector<double>{1, 2, 8, 8}));
  EXPECT_FALSE((OpCall{"Where", 16, {}, {testing::F32({1}, {1}), x, y}}).Run().ok());
  EXPECT_FALSE(
      (OpCall{"Where", 16, {}, {c, testing::I64({3}, {}), testing::I64({2, 2}, {})}}).Run().ok());
}

TEST(Clip, OpsetVariantsAndEdges) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = testing::F32({5}, {-3, -1, 0.5, 4, nan});
  Tensor y6 = testing::RunOne(
      {"Clip", 6, {testing::AttrFloat("min", -1), testing::AttrFloat("max", 1)}, {x}});
  auto v6 = testing::Values(y6);
  EXPECT_EQ(std::vector<double>(v6.begin(), v6.begin() + 4), (std::vector<double>{-1, -1, 0.5, 1}));
  EXPECT_TRUE(std::isnan(v6[4]));
  // Opset 11+: optional scalar inputs; only max given.
  OpCall only_max{"Clip", 13, {}, {x, Value(), testing::F32({}, {0})}, {false, true, false}};
  auto r = only_max.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto vm = testing::Values((*r)[0].tensor());
  EXPECT_EQ(std::vector<double>(vm.begin(), vm.begin() + 4), (std::vector<double>{-3, -1, 0, 0}));
  // min > max: everything becomes max.
  Tensor yi = testing::RunOne(
      {"Clip",
       13,
       {},
       {testing::I64({3}, {-5, 0, 5}), testing::I64({}, {2}), testing::I64({}, {1})}});
  EXPECT_EQ(testing::Values(yi), (std::vector<double>{1, 1, 1}));
  // Bounds must be scalars of the input dtype.
  EXPECT_FALSE((OpCall{"Clip", 13, {}, {x, testing::F32({2}, {0, 1})}}).Run().ok());
  EXPECT_FALSE((OpCall{"Clip", 13, {}, {x, testing::I64({}, {0})}}).Run().ok());
}

TEST(Variadic, BroadcastNaNAndMean) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor a = testing::F32({3}, {1, nan, 3});
  Tensor b = testing::F32({2, 1}, {2, 0});
  Tensor c = testing::F32({}, {2.5});
  auto mx = testing::Values(testing::RunOne({"Max", 13, {}, {a, b, c}}));
  ASSERT_EQ(mx.size(), 6u);
  EXPECT_EQ(mx[0], 2.5);
  EXPECT_TRUE(std::isnan(mx[1]));
  EXPECT_EQ(mx[2], 3);
  auto mn = testing::Values(testing::RunOne({"Min", 13, {}, {b, a}}));
  EXPECT_EQ(mn[0], 1);
  EXPECT_TRUE(std::isnan(mn[4]));
  EXPECT_EQ(testing::Values(testing::RunOne({"Sum", 13, {}, {b, c}})),
            (std::vector<double>{4.5, 2.5}));
  EXPECT_EQ(testing::Values(testing::RunOne({"Mean", 13, {}, {b, c, b}})),
            (std::vector<double>{6.5f / 3.0f, 2.5f / 3.0f}));
  EXPECT_EQ(testing::Values(testing::RunOne({"Max", 13, {}, {b}})), (std::vector<double>{2, 0}));
  EXPECT_FALSE((OpCall{"Sum", 13, {}, {a, testing::F32({2}, {1, 2})}}).Run().ok());
  EXPECT_FALSE((OpCall{"Mean", 13, {}, {testing::I64({1}, {1})}}).Run().ok());
}

TEST(CompareLogic, TypesAndBroadcast) {
  Tensor s1 = Tensor::Empty(DType::kString, {2});
  s1.mutable_data<std::string>()[0] = "a";
  s1.mutable_data<std::string>()[1] = "b";
  Tensor s2 = Tensor::Empty(DType::kString, {});
  *s2.mutable_data<std::string>() = "b";
  EXPECT_EQ(testing::Values(testing::RunOne({"Equal", 19, {}, {s1, s2}})),
            (std::vector<double>{0, 1}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor f = testing::F32({3}, {1, nan, 3});
  EXPECT_EQ(testing::Values(testing::RunOne({"Equal", 13, {}, {f, f}})),
            (std::vector<double>{1, 0, 1}));
  Tensor g = testing::F32({3, 1}, {0, 2, 4});
  EXPECT_EQ(testing::Values(testing::RunOne({"GreaterOrEqual", 16, {}, {f, g}})),
            (std::vector<double>{1, 0, 1, 0, 0, 1, 0, 0, 0}));
  Tensor u = testing::MakeTensor(DType::kBool, {2}, {1, 0});
  Tensor v = testing::MakeTensor(DType::kBool, {2, 1}, {1, 0});
  EXPECT_EQ(testing::Values(testing::RunOne({"Xor", 7, {}, {u, v}})),
            (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(testing::Values(testing::RunOne({"And", 7, {}, {u, v}})),
            (std::vector<double>{1, 0, 0, 0}));
  EXPECT_FALSE((OpCall{"And", 7, {}, {f, f}}).Run().ok());
  EXPECT_FALSE((OpCall{"Less", 13, {}, {s1, s1}}).Run().ok());
}

}  // namespace
}  // namespace vt::ops
