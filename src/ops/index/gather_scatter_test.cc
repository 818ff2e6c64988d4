#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(ScatterElementsOp, ReductionsAndDuplicates) {
  const std::vector<std::pair<std::string, std::vector<double>>> cases = {
      {"none", {1, 3.1, 3, 4, 5}}, {"add", {1, 7.2, 3, 4, 5}}, {"mul", {1, 2 * 2.1 * 3.1, 3, 4, 5}},
      {"max", {1, 3.1, 3, 4, 5}}, {"min", {1, 2, 3, 4, 5}}};
  for (const auto& [red, want] : cases) {
    OpCall c{"ScatterElements", 18, {AttrString("reduction", red)},
             {F32({5}, {1, 2, 3, 4, 5}), I64({2}, {1, -4}), F32({2}, {2.1, 3.1})}};
    auto got = Values(RunOne(c));
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << red;
  }
}

TEST(ScatterElementsOp, AxisAndOldScatter) {
  OpCall c{"ScatterElements", 13, {AttrInt("axis", 1)},
           {Tensor::Zeros(DType::kFloat32, {2, 3}), I64({2, 1}, {2, 0}), F32({2, 1}, {5, 6})}};
  EXPECT_EQ(Values(RunOne(c)), (std::vector<double>{0, 0, 5, 6, 0, 0}));
  OpCall old{"Scatter", 9, {}, {Tensor::Zeros(DType::kFloat32, {3}), I64({1}, {1}), F32({1}, {4})}};
  EXPECT_EQ(Values(RunOne(old)), (std::vector<double>{0, 4, 0}));
}

TEST(ScatterElementsOp, Errors) {
  OpCall oob{"ScatterElements", 13, {}, {Iota({3}), I64({1}, {3}), F32({1}, {1})}};
  EXPECT_FALSE(oob.Run().ok());
  OpCall shape{"ScatterElements", 13, {}, {Iota({3}), I64({2}, {0, 1}), F32({1}, {1})}};
  EXPECT_FALSE(shape.Run().ok());
  OpCall red{"ScatterElements", 15, {AttrString("reduction", "add")}, {Iota({3}), I64({1}, {0}), F32({1}, {1})}};
  EXPECT_FALSE(red.Run().ok());  // reduction needs opset 16
  OpCall dtype{"ScatterElements", 13, {}, {Iota({3}), I64({1}, {0}), I64({1}, {1})}};
  EXPECT_FALSE(dtype.Run().ok());
}

TEST(ScatterNDOp, SlicesAndReduction) {
  OpCall c{"ScatterND", 13, {}, {Iota({3, 2}), I64({2, 1}, {2, 0}), F32({2, 2}, {10, 11, 12, 13})}};
  EXPECT_EQ(Values(RunOne(c)), (std::vector<double>{12, 13, 2, 3, 10, 11}));
  OpCall add{"ScatterND", 16, {AttrString("reduction", "add")},
             {Iota({4}), I64({2, 1}, {1, 1}), F32({2}, {10, 20})}};
  EXPECT_EQ(Values(RunOne(add)), (std::vector<double>{0, 31, 2, 3}));
  OpCall ints{"ScatterND", 18, {AttrString("reduction", "max")},
              {I64({3}, {5, 5, 5}), I64({2, 1}, {0, 2}), I64({2}, {9, 1})}};
  EXPECT_EQ(Values(RunOne(ints)), (std::vector<double>{9, 5, 5}));
}

TEST(ScatterNDOp, Errors) {
  OpCall oob{"ScatterND", 13, {}, {Iota({3}), I64({1, 1}, {-4}), F32({1}, {1})}};
  EXPECT_FALSE(oob.Run().ok());
  OpCall upd{"ScatterND", 13, {}, {Iota({3, 2}), I64({1, 1}, {0}), F32({3}, {1, 2, 3})}};
  EXPECT_FALSE(upd.Run().ok());
  OpCall k{"ScatterND", 13, {}, {Iota({3}), I64({1, 2}, {0, 0}), F32({1}, {1})}};
  EXPECT_FALSE(k.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
