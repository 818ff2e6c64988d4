// StringConcat: broadcasting on odd sizes against a direct loop, and refused inputs.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::Iota;
using testing::OpCall;

Tensor Numbered(const Shape& shape, const std::string& prefix) {
  Tensor t = Tensor::Empty(DType::kString, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<std::string>()[i] = prefix + std::to_string(i);
  return t;
}

TEST(StringConcatTest, BroadcastOddSizes) {
  OpCall c{"StringConcat", 20, {}, {Numbered({7, 1, 3}, "x"), Numbered({17, 1}, "é")}};
  Tensor z = testing::RunOne(c);
  ASSERT_EQ(z.shape(), Shape({7, 17, 3}));
  const std::string* s = z.data<std::string>();
  for (int64_t i = 0; i < 7; ++i)
    for (int64_t j = 0; j < 17; ++j)
      for (int64_t k = 0; k < 3; ++k)
        ASSERT_EQ(s[(i * 17 + j) * 3 + k], "x" + std::to_string(i * 3 + k) + "é" + std::to_string(j));
}

TEST(StringConcatTest, ScalarAndEmpty) {
  OpCall c{"StringConcat", 20, {}, {Numbered({}, "a"), Numbered({0, 5}, "b")}};
  Tensor z = testing::RunOne(c);
  EXPECT_EQ(z.shape(), Shape({0, 5}));
  c.inputs[1] = Numbered({1}, "");
  z = testing::RunOne(c);
  ASSERT_EQ(z.shape(), Shape({1}));
  EXPECT_EQ(z.data<std::string>()[0], "a00");
}

TEST(StringConcatTest, BadInputsNameNodeAndInput) {
  OpCall c{"StringConcat", 20, {}, {Numbered({3}, "a"), Numbered({4}, "b")}};
  auto r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("inputs 'X' (0) [3] and 'Y' (1) [4] do not broadcast"),
            std::string::npos) << r.status().ToString();
  c.inputs[1] = Iota({3});
  r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("input 'Y' (1) has element type float32"), std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace vt::ops
