#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(ConcatOp, EveryAxisAgainstNaive) {
  for (int64_t axis : {0, 1, 2, -1}) {
    const int64_t a = axis < 0 ? axis + 3 : axis;
    Shape s1 = {2, 3, 4}, s2 = {2, 3, 4};
    s2[static_cast<size_t>(a)] = 5;
    Tensor x1 = Iota(s1), x2 = Iota(s2);
    OpCall c{"Concat", 13, {AttrInt("axis", axis)}, {x1, x2}};
    Tensor y = RunOne(c);
    Shape so = s1;
    so[static_cast<size_t>(a)] += 5;
    ASSERT_EQ(y.shape(), so);
    std::vector<int64_t> idx(3, 0);
    for (int64_t k = 0; k < y.numel(); ++k) {
      const bool second = idx[static_cast<size_t>(a)] >= s1[static_cast<size_t>(a)];
      const Shape& s = second ? s2 : s1;
      std::vector<int64_t> j = idx;
      if (second) j[static_cast<size_t>(a)] -= s1[static_cast<size_t>(a)];
      const double want = static_cast<double>((j[0] * s[1] + j[1]) * s[2] + j[2]);
      EXPECT_EQ(y.GetDouble(k), want);
      for (int d = 2; d >= 0; --d) {
        if (++idx[static_cast<size_t>(d)] < so[static_cast<size_t>(d)]) break;
        idx[static_cast<size_t>(d)] = 0;
      }
    }
  }
}

TEST(ConcatOp, StridedInputsEmptyPartsAndStrings) {
  Tensor x = Iota({2, 3});
  Tensor xt = x.WithLayout(*x.layout().Transpose({1, 0}));  // [3,2] view
  OpCall c{"Concat", 13, {AttrInt("axis", 0)}, {xt, Iota({0, 2})}};
  EXPECT_EQ(Values(RunOne(c)), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  Tensor s = Tensor::Empty(DType::kString, {1});
  s.mutable_data<std::string>()[0] = "hello";
  OpCall cs{"Concat", 13, {AttrInt("axis", 0)}, {s, s}};
  Tensor y = RunOne(cs);
  EXPECT_EQ(y.data<std::string>()[1], "hello");
}

TEST(ConcatOp, Errors) {
  OpCall shape{"Concat", 13, {AttrInt("axis", 0)}, {Iota({2, 3}), Iota({2, 4})}};
  EXPECT_FALSE(shape.Run().ok());
  OpCall dtype{"Concat", 13, {AttrInt("axis", 0)}, {Iota({2}), I64({2}, {1, 2})}};
  EXPECT_FALSE(dtype.Run().ok());
  OpCall axis{"Concat", 13, {AttrInt("axis", 2)}, {Iota({2}), Iota({2})}};
  EXPECT_FALSE(axis.Run().ok());
  OpCall no_axis{"Concat", 13, {}, {Iota({2}), Iota({2})}};
  EXPECT_FALSE(no_axis.Run().ok());
}

TEST(SplitOp, InputSplitAttrSplitAndEqualParts) {
  OpCall c{"Split", 13, {AttrInt("axis", 1)}, {Iota({2, 5}), I64({2}, {2, 3})}, {}, 2};
  auto r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values((*r)[0].tensor()), (std::vector<double>{0, 1, 5, 6}));
  EXPECT_EQ(Values((*r)[1].tensor()), (std::vector<double>{2, 3, 4, 7, 8, 9}));
  EXPECT_TRUE((*r)[1].tensor().is_contiguous());
  OpCall attr{"Split", 11, {AttrInts("split", {1, 1})}, {Iota({2, 5})}, {}, 2};
  auto ra = attr.Run();
  ASSERT_TRUE(ra.ok());
  EXPECT_EQ((*ra)[1].tensor().storage(), attr.inputs[0].tensor().storage());  // axis 0: view
  OpCall equal{"Split", 13, {}, {Iota({6})}, {}, 3};
  auto re = equal.Run();
  ASSERT_TRUE(re.ok());
  EXPECT_EQ(Values((*re)[2].tensor()), (std::vector<double>{4, 5}));
  OpCall num{"Split", 18, {AttrInt("num_outputs", 3)}, {Iota({7})}, {}, 3};
  auto rn = num.Run();
  ASSERT_TRUE(rn.ok());
  EXPECT_EQ((*rn)[2].tensor().shape(), (Shape{1}));
}

TEST(SplitOp, Errors) {
  OpCall sum{"Split", 13, {}, {Iota({6}), I64({2}, {2, 3})}, {}, 2};
  EXPECT_FALSE(sum.Run().ok());
  OpCall uneven{"Split", 13, {}, {Iota({7})}, {}, 2};
  EXPECT_FALSE(uneven.Run().ok());
  OpCall neg{"Split", 13, {}, {Iota({6}), I64({2}, {-1, 7})}, {}, 2};
  EXPECT_FALSE(neg.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
