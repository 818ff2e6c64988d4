#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::OpCall;

TEST(Pow, MixedDtypesFollowTheBase) {
  Tensor xi = testing::MakeTensor(DType::kInt32, {3}, {1, 2, 3});
  Tensor yf = testing::F32({3}, {4, 5, 6});
  Tensor z = testing::RunOne({"Pow", 15, {}, {xi, yf}});
  ASSERT_EQ(z.dtype(), DType::kInt32);
  EXPECT_EQ(testing::Values(z), (std::vector<double>{1, 32, 729}));
  Tensor zf = testing::RunOne({"Pow", 15, {}, {yf, testing::I64({3}, {2, -1, 0})}});
  ASSERT_EQ(zf.dtype(), DType::kFloat32);
  EXPECT_EQ(testing::Values(zf), (std::vector<double>{16, 0.2f, 1}));
  Tensor big =
      testing::RunOne({"Pow", 15, {}, {testing::I64({2}, {3, -2}), testing::I64({2}, {39, 3})}});
  EXPECT_EQ(big.data<int64_t>()[0], 4052555153018976267LL);  // exact, beyond double precision
  EXPECT_EQ(big.data<int64_t>()[1], -8);
  Tensor neg =
      testing::RunOne({"Pow", 15, {}, {testing::I64({3}, {2, 1, -1}), testing::I64({1}, {-3})}});
  EXPECT_EQ(testing::Values(neg), (std::vector<double>{0, 1, -1}));
  // Opsets before 12 require one dtype.
  EXPECT_FALSE((OpCall{"Pow", 7, {}, {yf, testing::I64({3}, {1, 2, 3})}}).Run().ok());
}

TEST(Pow, ScalarExponentFastPathsMatchPow) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<double> x = {-inf, -2.5, -0.0, 0.0, 0.3, 1.7, 9, inf};
  for (double e : {0.5, 1.0, 2.0, 3.0, -1.0, 0.0, 1.5, -2.0}) {
    Tensor y = testing::RunOne({"Pow", 13, {}, {testing::F32({8}, x), testing::F32({}, {e})}});
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = std::pow(static_cast<float>(x[i]), static_cast<float>(e));
      const float got = y.data<float>()[i];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << x[i] << "^" << e;
      } else {
        EXPECT_FLOAT_EQ(got, want) << x[i] << "^" << e;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << x[i] << "^" << e;
      }
    }
  }
}

TEST(Mod, SignConventions) {
  Tensor a = testing::I64({6}, {-4, 7, 5, -4, 3, -9});
  Tensor b = testing::I64({6}, {3, -3, 0, -3, 2, -1});
  EXPECT_EQ(testing::Values(testing::RunOne({"Mod", 13, {}, {a, b}})),
            (std::vector<double>{2, -2, 0, -1, 1, 0}));
  EXPECT_EQ(testing::Values(testing::RunOne({"Mod", 13, {testing::AttrInt("fmod", 1)}, {a, b}})),
            (std::vector<double>{-1, 1, 0, -1, 1, 0}));
  Tensor fa = testing::F32({3}, {-4.5, 7.5, 1});
  Tensor fb = testing::F32({1}, {2});
  EXPECT_EQ(testing::Values(testing::RunOne({"Mod", 13, {testing::AttrInt("fmod", 1)}, {fa, fb}})),
            (std::vector<double>{-0.5, 1.5, 1}));
  EXPECT_FALSE((OpCall{"Mod", 13, {}, {fa, fb}}).Run().ok());  // floats need fmod=1
  // INT_MIN % -1 must not trap.
  Tensor mn = testing::I64({1}, {0});
  mn.mutable_data<int64_t>()[0] = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(testing::Values(testing::RunOne({"Mod", 13, {}, {mn, testing::I64({1}, {-1})}})),
            (std::vector<double>{0}));
}

TEST(BitShift, WidthAndDirection) {
  Tensor x = testing::MakeTensor(DType::kUInt8, {3}, {1, 128, 255});
  Tensor s = testing::MakeTensor(DType::kUInt8, {3}, {3, 1, 8});
  EXPECT_EQ(testing::Values(testing::RunOne(
                {"BitShift", 11, {testing::AttrString("direction", "LEFT")}, {x, s}})),
            (std::vector<double>{8, 0, 0}));
  EXPECT_EQ(testing::Values(testing::RunOne(
                {"BitShift", 11, {testing::AttrString("direction", "RIGHT")}, {x, s}})),
            (std::vector<double>{0, 64, 0}));
  EXPECT_FALSE(
      (OpCall{"BitShift", 11, {testing::AttrString("direction", "UP")}, {x, s}}).Run().ok());
  EXPECT_FALSE((OpCall{"BitShift",
                       11,
                       {testing::AttrString("direction", "LEFT")},
                       {testing::I64({1}, {1}), testing::I64({1}, {1})}})
                   .Run()
                   .ok());
}

}  // namespace
}  // namespace vt::ops
