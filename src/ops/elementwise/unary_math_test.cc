#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::OpCall;

std::vector<double> RunF(const std::string& op, const std::vector<double>& x,
                         std::vector<Attribute> attrs = {}, int opset = 13) {
  return testing::Values(testing::RunOne(
      {op, opset, std::move(attrs), {testing::F32({static_cast<int64_t>(x.size())}, x)}}));
}

TEST(UnaryMath, RoundIsHalfToEven) {
  EXPECT_EQ(RunF("Round", {0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6}, {}, 11),
            (std::vector<double>{0, 2, 2, -0, -2, 2, -3}));
}

TEST(UnaryMath, SignAbsNegOnIntegers) {
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  Tensor x = testing::I64({4}, {-5, 0, 7, 0});
  x.mutable_data<int64_t>()[3] = kMin;
  EXPECT_EQ(testing::Values(testing::RunOne({"Sign", 13, {}, {x}})),
            (std::vector<double>{-1, 0, 1, -1}));
  Tensor a = testing::RunOne({"Abs", 13, {}, {x}});
  EXPECT_EQ(a.data<int64_t>()[0], 5);
  EXPECT_EQ(a.data<int64_t>()[3], kMin);  // wraps like numpy, no UB
  Tensor n = testing::RunOne({"Neg", 13, {}, {x}});
  EXPECT_EQ(n.data<int64_t>()[2], -7);
  Tensor u = testing::MakeTensor(DType::kUInt8, {2}, {0, 200});
  EXPECT_EQ(testing::Values(testing::RunOne({"Sign", 13, {}, {u}})), (std::vector<double>{0, 1}));
  EXPECT_FALSE((OpCall{"Neg", 13, {}, {u}}).Run().ok());
}

TEST(UnaryMath, IsInfIsNaNAttributes) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x = {-inf, inf, nan, 1};
  EXPECT_EQ(RunF("IsInf", x, {}, 10), (std::vector<double>{1, 1, 0, 0}));
  EXPECT_EQ(RunF("IsInf", x, {testing::AttrInt("detect_negative", 0)}, 10),
            (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(RunF("IsInf", x, {testing::AttrInt("detect_positive", 0)}, 10),
            (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(RunF("IsNaN", x), (std::vector<double>{0, 0, 1, 0}));
}

TEST(UnaryMath, Float16ComputesInFloat) {
  Tensor x = testing::MakeTensor(DType::kFloat16, {3}, {4, 0.25, 2});
  Tensor y = testing::RunOne({"Sqrt", 13, {}, {x}});
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(y.data<uint16_t>()[0], FloatToHalf(2.0f));
  EXPECT_EQ(y.data<uint16_t>()[1], FloatToHalf(0.5f));
  EXPECT_EQ(y.data<uint16_t>()[2], FloatToHalf(std::sqrt(2.0f)));
}

TEST(UnaryMath, NotAndEmptyAndStrided) {
  Tensor b = testing::MakeTensor(DType::kBool, {3}, {1, 0, 1});
  EXPECT_EQ(testing::Values(testing::RunOne({"Not", 1, {}, {b}})), (std::vector<double>{0, 1, 0}));
  Tensor e = testing::F32({0, 3}, {});
  Tensor ye = testing::RunOne({"Exp", 13, {}, {e}});
  EXPECT_EQ(ye.shape(), (Shape{0, 3}));
  Tensor base = testing::F32({2, 2}, {1, 4, 9, 16});
  Tensor t = base.WithLayout(*base.layout().Transpose({1, 0}));
  EXPECT_EQ(testing::Values(testing::RunOne({"Sqrt", 13, {}, {t}})),
            (std::vector<double>{1, 3, 2, 4}));
  EXPECT_FALSE((OpCall{"Exp", 13, {}, {}}).Run().ok());
}

}  // namespace
}  // namespace vt::ops
