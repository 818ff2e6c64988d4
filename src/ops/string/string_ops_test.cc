// StringNormalizer and TfIdfVectorizer through their registered kernels.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::AttrInts;
using testing::AttrString;
using testing::I64;
using testing::OpCall;
using testing::Values;

Tensor Strings(const Shape& shape, const std::vector<std::string>& v) {
  Tensor t = Tensor::Empty(DType::kString, shape);
  for (size_t i = 0; i < v.size(); ++i) t.mutable_data<std::string>()[i] = v[i];
  return t;
}

std::vector<std::string> StringValues(const Tensor& t) {
  Tensor c = t.Contiguous();
  return {c.data<std::string>(), c.data<std::string>() + c.numel()};
}

Attribute AttrStrings(const std::string& name, std::vector<std::string> v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kStrings;
  a.strings = std::move(v);
  return a;
}

TEST(StringNormalizerTest, StopwordsAndCase) {
  OpCall c{"StringNormalizer", 10,
           {AttrString("case_change_action", "LOWER"), AttrStrings("stopwords", {"the", "Über"})},
           {Strings({1, 4}, {"The", "CAT", "Über", "über"})}};
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Case-insensitive matching folds ASCII only; the UTF-8 "ü" is left alone.
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({1, 2}));
  EXPECT_EQ(StringValues((*r)[0].tensor()), std::vector<std::string>({"cat", "über"}));
  c.attrs.push_back(AttrInt("is_case_sensitive", 1));
  r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(StringValues((*r)[0].tensor()), std::vector<std::string>({"the", "cat", "über"}));
}

TEST(StringNormalizerTest, AllRemovedGivesOneEmptyString) {
  OpCall c{"StringNormalizer", 10, {AttrStrings("stopwords", {"a"})}, {Strings({2}, {"a", "A"})}};
  auto r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({1}));
  EXPECT_EQ(StringValues((*r)[0].tensor()), std::vector<std::string>({""}));
  OpCall bad{"StringNormalizer", 10, {}, {Strings({2, 2}, {"a", "b", "c", "d"})}};
  EXPECT_FALSE(bad.Run().ok());
  OpCall bad_action{"StringNormalizer", 10, {AttrString("case_change_action", "TITLE")},
                    {Strings({1}, {"a"})}};
  EXPECT_FALSE(bad_action.Run().ok());
}

OpCall TfIdf(const std::string& mode, int64_t min_n, int64_t max_n, int64_t skip) {
  // Pool: 1-grams {2, 3}, 2-grams {(2,3), (3,4)}; columns 0..3.
  return OpCall{"TfIdfVectorizer", 9,
                {AttrString("mode", mode), AttrInt("min_gram_length", min_n),
                 AttrInt("max_gram_length", max_n), AttrInt("max_skip_count", skip),
                 AttrInts("ngram_counts", {0, 2}), AttrInts("ngram_indexes", {0, 1, 2, 3}),
                 AttrInts("pool_int64s", {2, 3, 2, 3, 3, 4}),
                 testing::AttrFloats("weights", {1, 2, 3, 4})},
                {}};
}

TEST(TfIdfVectorizerTest, CountsWithSkips) {
  OpCall c = TfIdf("TF", 1, 2, 0);
  c.inputs = {I64({2, 4}, {2, 3, 4, 3, 2, 9, 3, 7})};
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().shape(), Shape({2, 4}));
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({1, 2, 1, 1, 1, 1, 0, 0}));
  // Skip 1: row 1 also forms (2, 3) from tokens 0 and 2; unigrams are not counted twice.
  c = TfIdf("TF", 1, 2, 1);
  c.inputs = {I64({2, 4}, {2, 3, 4, 3, 2, 9, 3, 7})};
  r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({1, 2, 1, 1, 1, 1, 1, 0}));
  c = TfIdf("TFIDF", 2, 2, 0);
  c.inputs = {I64({4}, {2, 3, 2, 3})};
  r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({0, 0, 6, 0}));  // (2, 3) twice, weight 3
  c = TfIdf("IDF", 1, 1, 0);
  c.inputs = {I64({3}, {3, 3, 3})};
  r = c.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({0, 2, 0, 0}));
}

TEST(TfIdfVectorizerTest, BadConfigurationsAreErrors) {
  OpCall c = TfIdf("TF", 1, 2, 0);
  c.attrs[4] = AttrInts("ngram_counts", {0, 5});  // 2-gram block does not fit the pool
  c.inputs = {I64({2}, {2, 3})};
  EXPECT_FALSE(c.Run().ok());
  c = TfIdf("BM25", 1, 2, 0);
  c.inputs = {I64({2}, {2, 3})};
  EXPECT_FALSE(c.Run().ok());
  c = TfIdf("TF", 1, 2, 0);
  c.inputs = {Strings({1}, {"a"})};  // integer pool, string input
  EXPECT_FALSE(c.Run().ok());
}

}  // namespace
}  // namespace vt::ops
