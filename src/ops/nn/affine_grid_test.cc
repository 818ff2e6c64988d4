// AffineGrid against nested loops over (D,) H, W on odd sizes, both align_corners values.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::MakeTensor;
using testing::OpCall;
using testing::Values;

double Coord(int64_t i, int64_t n, bool ac) {
  if (ac) return n == 1 ? -1.0 : -1.0 + 2.0 * i / (n - 1);
  return -1.0 + (2.0 * i + 1.0) / n;
}

std::vector<double> Theta(int64_t n, int64_t k) {
  std::vector<double> v;
  for (int64_t i = 0; i < n * k * (k + 1); ++i) v.push_back(std::sin(0.7 * i + 0.3));
  return v;
}

void Check2D(int64_t n, int64_t h, int64_t w, bool ac, DType dt, double tol) {
  const std::vector<double> th = Theta(n, 2);
  OpCall c{"AffineGrid", 20, {AttrInt("align_corners", ac)},
           {MakeTensor(dt, {n, 2, 3}, th), MakeTensor(DType::kInt64, {4}, {double(n), 3, double(h), double(w)})}};
  Tensor g = testing::RunOne(c);
  ASSERT_EQ(g.shape(), Shape({n, h, w, 2}));
  ASSERT_EQ(g.dtype(), dt);
  const std::vector<double> got = Values(g);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t r = 0; r < 2; ++r) {
          const double* t = &th[static_cast<size_t>(b * 6 + r * 3)];
          const double want = t[0] * Coord(x, w, ac) + t[1] * Coord(y, h, ac) + t[2];
          ASSERT_NEAR(got[static_cast<size_t>(((b * h + y) * w + x) * 2 + r)], want, tol);
        }
}

TEST(AffineGridTest, TwoDOddSizes) {
  Check2D(1, 7, 17, false, DType::kFloat32, 1e-6);
  Check2D(3, 1, 33, true, DType::kFloat32, 1e-6);
  Check2D(2, 17, 7, true, DType::kFloat64, 1e-15);
  Check2D(2, 5, 9, false, DType::kFloat16, 4e-3);
}

TEST(AffineGridTest, ThreeDOddSizes) {
  const int64_t n = 2, d = 3, h = 7, w = 5;
  const std::vector<double> th = Theta(n, 3);
  for (bool ac : {false, true}) {
    OpCall c{"AffineGrid", 20, {AttrInt("align_corners", ac)},
             {MakeTensor(DType::kFloat64, {n, 3, 4}, th),
              MakeTensor(DType::kInt64, {5}, {double(n), 1, double(d), double(h), double(w)})}};
    Tensor g = testing::RunOne(c);
    ASSERT_EQ(g.shape(), Shape({n, d, h, w, 3}));
    const std::vector<double> got = Values(g);
    size_t o = 0;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t z = 0; z < d; ++z)
        for (int64_t y = 0; y < h; ++y)
          for (int64_t x = 0; x < w; ++x)
            for (int64_t r = 0; r < 3; ++r, ++o) {
              const double* t = &th[static_cast<size_t>(b * 12 + r * 4)];
              const double want = t[0] * Coord(x, w, ac) + t[1] * Coord(y, h, ac) +
                                  t[2] * Coord(z, d, ac) + t[3];
              ASSERT_NEAR(got[o], want, 1e-14);
            }
  }
}

TEST(AffineGridTest, BadInputsNameNodeAndInput) {
  OpCall c{"AffineGrid", 20, {},
           {MakeTensor(DType::kFloat32, {2, 2, 3}, Theta(2, 2)), MakeTensor(DType::kInt64, {5}, {2, 1, 3, 4, 5})}};
  auto r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("input 'theta' (0): expected shape [2,3,4]"), std::string::npos)
      << r.status().ToString();
  c.inputs[1] = MakeTensor(DType::kInt32, {4}, {2, 1, 3, 4});
  r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("input 'size' (1) must be int64 of shape [4] or [5]"),
            std::string::npos);
  c.inputs[0] = MakeTensor(DType::kInt32, {2, 2, 3}, Theta(2, 2));
  c.inputs[1] = MakeTensor(DType::kInt64, {4}, {2, 1, 3, 4});
  EXPECT_FALSE(c.Run().ok());
}

}  // namespace
}  // namespace vt::ops
