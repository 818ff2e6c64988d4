#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(DropoutOp, InferenceIsIdentityWithTrueMask) {
  Tensor x = Iota({2, 3});
  OpCall c{"Dropout", 13, {}, {x}, {}, 2};
  auto r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].tensor().storage(), x.storage());
  EXPECT_EQ((*r)[1].tensor().dtype(), DType::kBool);
  EXPECT_EQ(Values((*r)[1].tensor()), std::vector<double>(6, 1));
  OpCall old{"Dropout", 7, {AttrFloat("ratio", 0.3f)}, {x}, {}, 2};
  auto ro = old.Run();
  ASSERT_TRUE(ro.ok());
  EXPECT_EQ((*ro)[1].tensor().dtype(), DType::kFloat32);  // mask has the data type before 10
}

TEST(DropoutOp, SeededTrainingMatchesNumpyLegacyGenerator) {
  // numpy: np.random.seed(0); np.random.uniform(0, 1, 3) -> 0.5488135, 0.71518937, 0.60276338
  Tensor x = F32({3}, {1, 2, 3});
  OpCall c{"Dropout", 13, {AttrInt("seed", 0)},
           {x, F32({}, {0.6}), MakeTensor(DType::kBool, {}, {1})}, {}, 2};
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values((*r)[1].tensor()), (std::vector<double>{0, 1, 1}));
  auto y = Values((*r)[0].tensor());
  EXPECT_NEAR(y[0], 0, 1e-6);
  EXPECT_NEAR(y[1], 2 / 0.4, 1e-5);
  EXPECT_NEAR(y[2], 3 / 0.4, 1e-5);
}

TEST(DropoutOp, BadRatioInTrainingIsAnError) {
  OpCall c{"Dropout", 13, {}, {Iota({2}), F32({}, {1.0}), MakeTensor(DType::kBool, {}, {1})}};
  EXPECT_FALSE(c.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
