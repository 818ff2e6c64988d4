// RegexFullMatch: whole-string matching in RE2 syntax, UTF-8, and invalid patterns.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrString;
using testing::OpCall;

Tensor Strings(const Shape& shape, const std::vector<std::string>& v) {
  Tensor t = Tensor::Empty(DType::kString, shape);
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<std::string>()[i] = v[i];
  return t;
}

std::vector<bool> Bools(const Tensor& t) {
  std::vector<bool> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<const uint8_t*>(t.raw_data())[i] != 0);
  return v;
}

TEST(RegexFullMatchTest, WholeStringOnly) {
  OpCall c{"RegexFullMatch", 20, {AttrString("pattern", R"(\w+@\w+\.(com|org))")},
           {Strings({7}, {"a@b.com", "a@b.com ", "x a@b.org", "a_1@z9.org", "", "@b.com", "A@B.COM"})}};
  Tensor y = testing::RunOne(c);
  ASSERT_EQ(y.dtype(), DType::kBool);
  ASSERT_EQ(y.shape(), Shape({7}));
  EXPECT_EQ(Bools(y), std::vector<bool>({true, false, false, true, false, false, false}));
}

TEST(RegexFullMatchTest, Utf8CharactersAndClasses) {
  // "." is one UTF-8 character, not one byte; \p{Greek} is an RE2 Unicode class.
  OpCall c{"RegexFullMatch", 20, {AttrString("pattern", R"(.\p{Greek}+)")},
           {Strings({3, 1}, {"éαβ", "eab", "ééα"})}};
  Tensor y = testing::RunOne(c);
  ASSERT_EQ(y.shape(), Shape({3, 1}));
  EXPECT_EQ(Bools(y), std::vector<bool>({true, false, false}));
}

TEST(RegexFullMatchTest, InvalidPatternGivesRe2Error) {
  OpCall c{"RegexFullMatch", 20, {AttrString("pattern", "(ab")}, {Strings({1}, {"ab"})}};
  auto r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("attribute 'pattern' \"(ab\" is not valid RE2 syntax: "
                                      "missing ): (ab"),
            std::string::npos)
      << r.status().ToString();
  // Perl lookahead is not RE2 syntax.
  c.attrs = {AttrString("pattern", "a(?=b)")};
  EXPECT_FALSE(c.Run().ok());
  c.attrs.clear();
  r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("attribute 'pattern' is required"), std::string::npos);
  c.attrs = {AttrString("pattern", "a")};
  c.inputs[0] = testing::Iota({2});
  r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("input 'X' (0) has element type float32"), std::string::npos);
}

}  // namespace
}  // namespace vt::ops
