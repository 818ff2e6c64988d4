// Softmax / LogSoftmax / Hardmax against a double reference: both opset conventions, every
// axis, odd row lengths on the contiguous and strided paths, extreme values.
#include <gtest/gtest.h>

#include <ctime>
#include <cmath>
#include <random>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::RunOne;
using testing::Values;

// Reference over [outer, n, inner].
std::vector<double> Reference(const std::string& op, const std::vector<double>& x, int64_t outer,
                              int64_t n, int64_t inner) {
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t r) { return static_cast<size_t>((o * n + r) * inner + i); };
      double mx = -INFINITY;
      int64_t arg = 0;
      for (int64_t r = 0; r < n; ++r)
        if (x[at(r)] > mx) {
          mx = x[at(r)];
          arg = r;
        }
      double s = 0;
      for (int64_t r = 0; r < n; ++r) s += std::exp(x[at(r)] - mx);
      for (int64_t r = 0; r < n; ++r) {
        if (op == "Softmax") y[at(r)] = std::exp(x[at(r)] - mx) / s;
        else if (op == "LogSoftmax") y[at(r)] = x[at(r)] - mx - std::log(s);
        else y[at(r)] = r == arg ? 1 : 0;
      }
    }
  return y;
}

std::vector<double> Random(size_t n, uint32_t seed, double scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(0, scale);
  std::vector<double> v(n);
  for (auto& e : v) e = static_cast<float>(d(rng));
  return v;
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << what << " at " << i;
}

TEST(Softmax, Opset13SingleAxisEveryAxis) {
  const Shape shape{3, 7, 5};
  const auto x = Random(105, 1, 3.0);
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"})
    for (int64_t axis : {0, 1, 2, -1, -2}) {
      const int64_t a = axis < 0 ? axis + 3 : axis;
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < 3; ++d) {
        if (d < a) outer *= shape[d];
        if (d > a) inner *= shape[d];
      }
      Tensor y = RunOne(OpCall{op, 13, {AttrInt("axis", axis)}, {F32(shape, x)}});
      ExpectClose(Values(y), Reference(op, x, outer, shape[a], inner),
                  std::string(op) + " axis " + std::to_string(axis));
    }
}

TEST(Softmax, BeforeOpset13CoercesTo2D) {
  const Shape shape{3, 4, 5};
  const auto x = Random(60, 2, 1.0);
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    // Default axis 1: rows of 4 * 5.
    ExpectClose(Values(RunOne(OpCall{op, 11, {}, {F32(shape, x)}})), Reference(op, x, 3, 20, 1), op);
    ExpectClose(Values(RunOne(OpCall{op, 11, {AttrInt("axis", 0)}, {F32(shape, x)}})),
                Reference(op, x, 1, 60, 1), op);
  }
}

TEST(Softmax, OddRowLengthsAndLargeValues) {
  for (int64_t n : {1, 7, 17, 33, 257}) {
    auto x = Random(static_cast<size_t>(2 * n), static_cast<uint32_t>(n), 50.0);
    x[0] = 1e4;  // would overflow exp without the max shift
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      ExpectClose(Values(RunOne(OpCall{op, 13, {}, {F32({2, n}, x)}})), Reference(op, x, 2, n, 1), op);
      ExpectClose(Values(RunOne(OpCall{op, 13, {AttrInt("axis", 0)}, {F32({2, n}, x)}})),
                  Reference(op, x, 1, 2, n), op);
    }
  }
}

TEST(Softmax, MaskedEntriesDoubleAndHalf) {
  Tensor x = F32({1, 4}, {-INFINITY, 0, -INFINITY, 0});
  EXPECT_EQ(Values(RunOne(OpCall{"Softmax", 13, {}, {x}})), (std::vector<double>{0, 0.5, 0, 0.5}));
  std::vector<double> ls = Values(RunOne(OpCall{"LogSoftmax", 13, {}, {x}}));
  EXPECT_EQ(ls[0], -INFINITY);
  EXPECT_NEAR(ls[1], std::log(0.5), 1e-6);

  Tensor xd = MakeTensor(DType::kFloat64, {2, 2}, {1, 2, 3, 5});
  Tensor yd = RunOne(OpCall{"Softmax", 13, {}, {xd}});
  EXPECT_EQ(yd.dtype(), DType::kFloat64);
  EXPECT_NEAR(Values(yd)[1], 1 / (1 + std::exp(-1.0)), 1e-12);
  Tensor xh = MakeTensor(DType::kFloat16, {2}, {0, 0});
  Tensor yh = RunOne(OpCall{"Softmax", 13, {}, {xh}});
  EXPECT_EQ(yh.dtype(), DType::kFloat16);
  EXPECT_EQ(Values(yh), (std::vector<double>{0.5, 0.5}));
}

TEST(Softmax, HardmaxFirstMaxWinsAndErrors) {
  Tensor x = F32({2, 3}, {1, 3, 3, 2, 2, 2});
  EXPECT_EQ(Values(RunOne(OpCall{"Hardmax", 13, {}, {x}})), (std::vector<double>{0, 1, 0, 1, 0, 0}));
  EXPECT_FALSE((OpCall{"Softmax", 13, {AttrInt("axis", 2)}, {x}}.Run().ok()));
  EXPECT_FALSE((OpCall{"Softmax", 13, {}, {testing::I64({2}, {1, 2})}}.Run().ok()));
  Tensor e = RunOne(OpCall{"Softmax", 13, {}, {Tensor::Empty(DType::kFloat32, {0, 3})}});
  EXPECT_EQ(e.shape(), (Shape{0, 3}));
}

// Run with --gtest_also_run_disabled_tests.
TEST(Softmax, DISABLED_Bench) {
  const Shape shape{4096, 1024};
  Tensor x = F32(shape, Random(static_cast<size_t>(NumElements(shape)), 3, 2.0));
  for (int64_t axis : {1, 0})
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      OpCall c{op, 13, {AttrInt("axis", axis)}, {x}};
      RunOne(c);
      const std::clock_t t0 = std::clock();  // CPU time: the build machine is shared
      for (int r = 0; r < 10; ++r) RunOne(c);
      const double s = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC / 10;
      std::printf("%-11s axis=%lld %.3f ms  %.2f GB/s\n", op, static_cast<long long>(axis), s * 1e3,
                  static_cast<double>(x.nbytes()) / s * 1e-9);
    }
}

}  // namespace
}  // namespace vt::ops
