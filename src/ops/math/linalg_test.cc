// Det on identity, permutation (sign), singular and batched inputs.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::RunOne;
using testing::Values;

TEST(Det, SmallMatricesAndBatches) {
  EXPECT_NEAR(Values(RunOne(OpCall{"Det", 11, {}, {F32({2, 2}, {1, 2, 3, 4})}}))[0], -2, 1e-6);
  EXPECT_NEAR(Values(RunOne(OpCall{"Det", 11, {}, {F32({3, 3}, {0, 1, 0, 1, 0, 0, 0, 0, 1})}}))[0], -1, 1e-6);
  EXPECT_EQ(Values(RunOne(OpCall{"Det", 11, {}, {F32({2, 2}, {1, 2, 2, 4})}}))[0], 0);
  Tensor b = RunOne(OpCall{"Det", 11, {}, {MakeTensor(DType::kFloat64, {2, 1, 1}, {3, -5})}});
  EXPECT_EQ(b.shape(), (Shape{2}));
  EXPECT_EQ(Values(b), (std::vector<double>{3, -5}));
  Tensor e = RunOne(OpCall{"Det", 11, {}, {F32({0, 2, 2}, {})}});
  EXPECT_EQ(e.shape(), (Shape{0}));
  EXPECT_EQ(Values(RunOne(OpCall{"Det", 11, {}, {F32({0, 0}, {})}})), std::vector<double>{1});
  EXPECT_FALSE((OpCall{"Det", 11, {}, {F32({2, 3}, {1, 2, 3, 4, 5, 6})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"Det", 11, {}, {testing::I64({1, 1}, {1})}}.Run().ok()));
}

}  // namespace
}  // namespace vt::ops
