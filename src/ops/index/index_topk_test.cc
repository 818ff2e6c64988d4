#include <gtest/gtest.h>

#include <cmath>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(TopKOp, LargestSmallestTiesAndAxis) {
  OpCall c{"TopK", 11, {}, {F32({1, 5}, {3, 1, 3, 7, 1}), I64({1}, {3})}, {}, 2};
  auto r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values((*r)[0].tensor()), (std::vector<double>{7, 3, 3}));
  EXPECT_EQ(Values((*r)[1].tensor()), (std::vector<double>{3, 0, 2}));
  c.attrs = {AttrInt("largest", 0)};
  r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values((*r)[0].tensor()), (std::vector<double>{1, 1, 3}));
  EXPECT_EQ(Values((*r)[1].tensor()), (std::vector<double>{1, 4, 0}));
  OpCall ax0{"TopK", 11, {AttrInt("axis", 0)}, {F32({3, 2}, {1, 6, 5, 2, 3, 4}), I64({1}, {1})}, {}, 2};
  auto r0 = ax0.Run();
  ASSERT_TRUE(r0.ok());
  EXPECT_EQ(Values((*r0)[0].tensor()), (std::vector<double>{5, 6}));
  EXPECT_EQ(Values((*r0)[1].tensor()), (std::vector<double>{1, 0}));
}

TEST(TopKOp, NanRanksHighestAndOpset1Attribute) {
  OpCall c{"TopK", 11, {}, {F32({3}, {1, NAN, 2}), I64({1}, {2})}, {}, 2};
  auto r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(std::isnan((*r)[0].tensor().GetDouble(0)));
  EXPECT_EQ((*r)[1].tensor().GetInt64(1), 2);
  OpCall v1{"TopK", 1, {AttrInt("k", 1)}, {I64({3}, {4, 9, 2})}, {}, 2};
  auto r1 = v1.Run();
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(Values((*r1)[0].tensor()), (std::vector<double>{9}));
}

TEST(TopKOp, Errors) {
  OpCall big{"TopK", 11, {}, {Iota({3}), I64({1}, {4})}, {}, 2};
  EXPECT_FALSE(big.Run().ok());
  OpCall neg{"TopK", 11, {}, {Iota({3}), I64({1}, {-1})}, {}, 2};
  EXPECT_FALSE(neg.Run().ok());
  OpCall scalar{"TopK", 11, {}, {F32({}, {1}), I64({1}, {1})}, {}, 2};
  EXPECT_FALSE(scalar.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
