// LpNormalization against direct double formulas.
#include <gtest/gtest.h>

#include "ops/norm/norm_test_util.h"

namespace vt::ops {
namespace {

using namespace normtest;

TEST(LpNorm, L1L2AndZeroRows) {
  Tensor x = F32({2, 2}, {3, 4, 0, 0});
  EXPECT_EQ(Values(RunOne(OpCall{"LpNormalization", 1, {}, {x}})),
            (std::vector<double>{0.6000000238418579, 0.800000011920929, 0, 0}));
  std::vector<double> l1 = Values(RunOne(OpCall{"LpNormalization", 1, {AttrInt("p", 1), AttrInt("axis", 0)}, {x}}));
  EXPECT_EQ(l1, (std::vector<double>{1, 1, 0, 0}));
  EXPECT_FALSE((OpCall{"LpNormalization", 1, {AttrInt("p", 3)}, {x}}.Run().ok()));
}

}  // namespace
}  // namespace vt::ops
