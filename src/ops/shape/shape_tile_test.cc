#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

// out[i] = in[i mod in_shape] per dim.
std::vector<double> NaiveTile(const Tensor& x, const std::vector<int64_t>& reps, Shape* out_shape) {
  const Shape& s = x.shape();
  Shape o(s.size());
  for (size_t d = 0; d < s.size(); ++d) o[d] = s[d] * reps[d];
  *out_shape = o;
  std::vector<double> v(static_cast<size_t>(NumElements(o)));
  std::vector<int64_t> idx(s.size(), 0);
  for (size_t k = 0; k < v.size(); ++k) {
    int64_t flat = 0;
    for (size_t d = 0; d < s.size(); ++d) flat = flat * s[d] + idx[d] % s[d];
    v[k] = x.GetDouble(flat);
    for (size_t d = s.size(); d-- > 0;) {
      if (++idx[d] < o[d]) break;
      idx[d] = 0;
    }
  }
  return v;
}

TEST(TileOp, MatchesNaiveOnOddShapes) {
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {{7}, {3}}, {{1, 17}, {2, 1}}, {{3, 1, 5}, {2, 7, 1}}, {{2, 3, 1, 2}, {1, 2, 3, 2}},
      {{3, 2}, {1, 1}}, {{2, 0}, {2, 2}}, {{2, 3}, {0, 1}}};
  for (const auto& [shape, reps] : cases) {
    Tensor x = Iota(shape);
    std::vector<double> r(reps.begin(), reps.end());
    OpCall c{"Tile", 13, {}, {x, I64({static_cast<int64_t>(reps.size())}, r)}};
    Tensor y = RunOne(c);
    Shape want_shape;
    auto want = NaiveTile(x, reps, &want_shape);
    EXPECT_EQ(y.shape(), want_shape);
    EXPECT_EQ(Values(y), want) << ShapeToString(shape);
  }
}

TEST(TileOp, StringsAndScalars) {
  Tensor s = Tensor::Empty(DType::kString, {2});
  s.mutable_data<std::string>()[0] = "a";
  s.mutable_data<std::string>()[1] = "bc";
  OpCall c{"Tile", 13, {}, {s, I64({1}, {2})}};
  Tensor y = RunOne(c);
  ASSERT_EQ(y.numel(), 4);
  EXPECT_EQ(y.data<std::string>()[3], "bc");
  OpCall scalar{"Tile", 13, {}, {F32({}, {5}), I64({0}, {})}};
  EXPECT_EQ(Values(RunOne(scalar)), (std::vector<double>{5}));
}

TEST(TileOp, Errors) {
  OpCall wrong_len{"Tile", 13, {}, {Iota({2, 3}), I64({1}, {2})}};
  EXPECT_FALSE(wrong_len.Run().ok());
  OpCall negative{"Tile", 13, {}, {Iota({2}), I64({1}, {-1})}};
  EXPECT_FALSE(negative.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
