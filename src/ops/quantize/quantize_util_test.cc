// RoundToFloatDType: one round-to-nearest-even into each float type, also for values a float32
// step would round twice.
#include "ops/quantize/quantize_util.h"

#include <gtest/gtest.h>

#include <cmath>

namespace vt::ops {
namespace {

TEST(RoundToFloatDType, RoundsOnceToNearestEven) {
  // float16 has 11 significant bits: 2049 and 2051 are ties between multiples of 2.
  EXPECT_EQ(RoundToFloatDType(2049, DType::kFloat16), 2048);
  EXPECT_EQ(RoundToFloatDType(2051, DType::kFloat16), 2052);
  EXPECT_EQ(RoundToFloatDType(2049.001, DType::kFloat16), 2050);
  EXPECT_TRUE(std::isinf(RoundToFloatDType(1e6, DType::kFloat16)));
  // 2^30 + 2^22 + 1 lies just above the midpoint of two bfloat16 neighbours (step 2^23), so it
  // rounds up; through a float32 round-to-nearest it would become the midpoint 2^30 + 2^22 and
  // round to even, down to 2^30.
  const double above_tie = std::ldexp(1, 30) + std::ldexp(1, 22) + 1;
  EXPECT_EQ(RoundToFloatDType(above_tie, DType::kBFloat16), std::ldexp(1, 30) + std::ldexp(1, 23));
  EXPECT_EQ(RoundToFloatDType(std::ldexp(1, 30) + std::ldexp(1, 22), DType::kBFloat16),
            std::ldexp(1, 30));
  EXPECT_EQ(RoundToFloatDType(-above_tie, DType::kBFloat16),
            -(std::ldexp(1, 30) + std::ldexp(1, 23)));
  EXPECT_EQ(RoundToFloatDType(0.1, DType::kFloat32), static_cast<double>(0.1f));
  EXPECT_EQ(RoundToFloatDType(0.1, DType::kFloat64), 0.1);
  EXPECT_TRUE(std::isnan(RoundToFloatDType(std::nan(""), DType::kBFloat16)));
  EXPECT_EQ(RoundToFloatDType(3.0, DType::kFloat16), 3.0);
}

}  // namespace
}  // namespace vt::ops
