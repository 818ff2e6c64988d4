#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

// Reference: numpy.pad semantics per dim after cropping negative pads.
int64_t MapIndex(int64_t o, int64_t before, int64_t n, const std::string& mode) {
  int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return i < 0 ? 0 : n - 1;
  if (mode == "wrap") return ((i % n) + n) % n;
  if (n == 1) return 0;
  const int64_t p = 2 * (n - 1);
  i = ((i % p) + p) % p;
  return i >= n ? p - i : i;
}

std::vector<double> NaivePad(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode,
                             double value, Shape* out_shape) {
  const int r = x.rank();
  Shape o(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) o[static_cast<size_t>(d)] = x.dim(d) + pads[static_cast<size_t>(d)] + pads[static_cast<size_t>(d) + static_cast<size_t>(r)];
  *out_shape = o;
  std::vector<double> v(static_cast<size_t>(NumElements(o)));
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  for (size_t k = 0; k < v.size(); ++k) {
    int64_t flat = 0;
    bool constant = false;
    for (int d = 0; d < r; ++d) {
      // Negative pads crop: shift into the cropped input.
      const int64_t b = pads[static_cast<size_t>(d)], e = pads[static_cast<size_t>(d) + static_cast<size_t>(r)];
      const int64_t crop_b = b < 0 ? -b : 0, crop_e = e < 0 ? -e : 0;
      const int64_t n = x.dim(d) - crop_b - crop_e;
      const int64_t i = MapIndex(idx[static_cast<size_t>(d)], std::max<int64_t>(b, 0), n, mode);
      if (i < 0) constant = true;
      flat = flat * x.dim(d) + (i < 0 ? 0 : i + crop_b);
    }
    v[k] = constant ? value : x.GetDouble(flat);
    for (int d = r - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < o[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  return v;
}

TEST(PadOp, ModesMatchNaive) {
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {{7}, {3, 9}}, {{3, 4}, {1, 2, 2, 1}}, {{2, 3, 5}, {0, 2, 4, 1, 0, 7}},
      {{1, 5}, {2, 1, 3, 0}}, {{4, 6}, {-1, 2, 1, -3}}, {{3, 3}, {0, 0, 0, 0}}};
  for (const std::string mode : {"constant", "reflect", "edge", "wrap"}) {
    for (const auto& [shape, pads] : cases) {
      Tensor x = Iota(shape);
      std::vector<double> p(pads.begin(), pads.end());
      OpCall c{"Pad", 19, {AttrString("mode", mode)},
               {x, I64({static_cast<int64_t>(pads.size())}, p), F32({}, {-2.5})}};
      Tensor y = RunOne(c);
      Shape want_shape;
      auto want = NaivePad(x, pads, mode, -2.5, &want_shape);
      EXPECT_EQ(y.shape(), want_shape) << mode << " " << ShapeToString(shape);
      EXPECT_EQ(Values(y), want) << mode << " " << ShapeToString(shape);
    }
  }
}

TEST(PadOp, OldOpsetAttributesAndAxesInput) {
  OpCall v2{"Pad", 2, {AttrInts("pads", {1, 0}), AttrFloat("value", 7)}, {Iota({2})}};
  EXPECT_EQ(Values(RunOne(v2)), (std::vector<double>{7, 0, 1}));
  OpCall v18{"Pad", 18, {}, {Iota({2, 2}), I64({2}, {1, 1}), F32({}, {9}), I64({1}, {-1})}};
  EXPECT_EQ(Values(RunOne(v18)), (std::vector<double>{9, 0, 1, 9, 9, 2, 3, 9}));
}

TEST(PadOp, Errors) {
  OpCall len{"Pad", 13, {}, {Iota({2, 2}), I64({2}, {1, 1})}};
  EXPECT_FALSE(len.Run().ok());
  OpCall crop{"Pad", 13, {}, {Iota({2}), I64({2}, {-2, -1})}};
  EXPECT_FALSE(crop.Run().ok());
  OpCall empty_reflect{"Pad", 13, {AttrString("mode", "reflect")}, {Iota({0}), I64({2}, {1, 1})}};
  EXPECT_FALSE(empty_reflect.Run().ok());
  OpCall bad_mode{"Pad", 13, {AttrString("mode", "mirror")}, {Iota({2}), I64({2}, {1, 1})}};
  EXPECT_FALSE(bad_mode.Run().ok());
  OpCall bad_value{"Pad", 13, {}, {Iota({2}), I64({2}, {1, 1}), I64({}, {1})}};
  EXPECT_FALSE(bad_value.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
