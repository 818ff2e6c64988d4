// StringSplit: delimiter and whitespace modes, maxsplit, padding and counts.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::AttrString;
using testing::OpCall;

Tensor Strings(const Shape& shape, const std::vector<std::string>& v) {
  Tensor t = Tensor::Empty(DType::kString, shape);
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<std::string>()[i] = v[i];
  return t;
}

std::vector<std::string> StringValues(const Tensor& t) {
  return {t.data<std::string>(), t.data<std::string>() + t.numel()};
}

Expected<std::vector<Value>> Split(const Tensor& x, std::vector<Attribute> attrs) {
  OpCall c{"StringSplit", 20, std::move(attrs), {x}};
  c.num_outputs = 2;
  return c.Run();
}

TEST(StringSplitTest, DelimiterKeepsEmptyPieces) {
  auto r = Split(Strings({3}, {"a,,b,", "", "c"}), {AttrString("delimiter", ",")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({3, 4}));
  EXPECT_EQ(StringValues((*r)[0].tensor()),
            std::vector<std::string>({"a", "", "b", "", "", "", "", "", "c", "", "", ""}));
  EXPECT_EQ(testing::Values((*r)[1].tensor()), std::vector<double>({4, 1, 1}));
}

TEST(StringSplitTest, MulticharDelimiterMaxsplit) {
  auto r = Split(Strings({1, 3}, {"1::2::3::4", "::", "x"}),
                 {AttrString("delimiter", "::"), AttrInt("maxsplit", 2)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({1, 3, 3}));
  EXPECT_EQ(StringValues((*r)[0].tensor()),
            std::vector<std::string>({"1", "2", "3::4", "", "", "", "x", "", ""}));
  EXPECT_EQ(testing::Values((*r)[1].tensor()), std::vector<double>({3, 2, 1}));
}

TEST(StringSplitTest, WhitespaceRunsAndMaxsplitRemainder) {
  auto r = Split(Strings({4}, {"  hello \t world\n", "", "   ", "a"}), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(StringValues((*r)[0].tensor()),
            std::vector<std::string>({"hello", "world", "", "", "", "", "a", ""}));
  EXPECT_EQ(testing::Values((*r)[1].tensor()), std::vector<double>({2, 0, 0, 1}));
  // Python's str.split(None, 1): the remainder loses leading whitespace and keeps trailing.
  r = Split(Strings({1}, {" a  b  c  "}), {AttrString("delimiter", ""), AttrInt("maxsplit", 1)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(StringValues((*r)[0].tensor()), std::vector<std::string>({"a", "b  c  "}));
}

TEST(StringSplitTest, EmptyInputAndAllBlankGiveWidthZero) {
  auto r = Split(Strings({0, 7}, {}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({0, 7, 0}));
  EXPECT_EQ((*r)[1].tensor().shape(), Shape({0, 7}));
  r = Split(Strings({2}, {" ", ""}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({2, 0}));
}

TEST(StringSplitTest, NonStringInputNamesInput) {
  auto r = Split(testing::Iota({3}), {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("input 'X' (0) has element type float32"), std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace vt::ops
