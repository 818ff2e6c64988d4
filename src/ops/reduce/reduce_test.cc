// Reduce* and ArgMax/ArgMin against a scalar reference on odd sizes, every axes pattern,
// both axes forms, keepdims, noop_with_empty_axes, empty reductions and bad input.
#include <gtest/gtest.h>

#include <ctime>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::AttrInts;
using testing::F32;
using testing::I64;
using testing::MakeTensor;
using testing::OpCall;
using testing::RunOne;
using testing::Values;

// Reference: groups every input element by its output position, then folds the group.
std::vector<double> Reference(const std::string& op, const std::vector<double>& x,
                              const Shape& shape, const std::vector<int64_t>& axes) {
  std::vector<bool> red(shape.size(), false);
  for (int64_t a : axes) red[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(shape.size()) : a)] = true;
  Shape out_shape;
  for (size_t d = 0; d < shape.size(); ++d) out_shape.push_back(red[d] ? 1 : shape[d]);
  std::vector<std::vector<double>> groups(static_cast<size_t>(NumElements(out_shape)));
  for (int64_t f = 0; f < static_cast<int64_t>(x.size()); ++f) {
    int64_t rem = f, o = 0, mul = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      const int64_t i = rem % shape[static_cast<size_t>(d)];
      rem /= shape[static_cast<size_t>(d)];
      if (!red[static_cast<size_t>(d)]) o += i * mul;
      mul *= out_shape[static_cast<size_t>(d)];
    }
    groups[static_cast<size_t>(o)].push_back(x[static_cast<size_t>(f)]);
  }
  std::vector<double> out;
  for (const auto& g : groups) {
    double s = 0, s1 = 0, s2 = 0, p = 1, mx = -INFINITY, mn = INFINITY;
    for (double v : g) {
      s += v;
      s1 += std::fabs(v);
      s2 += v * v;
      p *= v;
      mx = std::max(mx, v);
      mn = std::min(mn, v);
    }
    double lse = 0;
    for (double v : g) lse += std::exp(v - mx);
    if (op == "ReduceSum") out.push_back(s);
    else if (op == "ReduceMean") out.push_back(s / static_cast<double>(g.size()));
    else if (op == "ReduceMax") out.push_back(mx);
    else if (op == "ReduceMin") out.push_back(mn);
    else if (op == "ReduceProd") out.push_back(p);
    else if (op == "ReduceL1") out.push_back(s1);
    else if (op == "ReduceL2") out.push_back(std::sqrt(s2));
    else if (op == "ReduceLogSum") out.push_back(std::log(s));
    else if (op == "ReduceLogSumExp") out.push_back(mx + std::log(lse));
    else out.push_back(s2);
  }
  return out;
}

std::vector<double> RandomValues(size_t n, uint32_t seed, double lo = 0.1, double hi = 1.5) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto& e : v) e = static_cast<float>(u(rng));  // exactly representable in float32
  return v;
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double rtol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], rtol * (1 + std::fabs(want[i]))) << what << " at " << i;
}

const char* kOps[] = {"ReduceSum",  "ReduceMean", "ReduceMax",    "ReduceMin",
                      "ReduceProd", "ReduceL1",   "ReduceL2",     "ReduceLogSum",
                      "ReduceLogSumExp", "ReduceSumSquare"};

TEST(Reduce, AllOpsAllAxesPatternsMatchReference) {
  const Shape shape{3, 1, 7, 5};
  const auto x = RandomValues(static_cast<size_t>(NumElements(shape)), 1);
  const std::vector<std::vector<int64_t>> patterns = {
      {0}, {2}, {3}, {-1}, {0, 2}, {1, 3}, {0, 3}, {2, 3}, {0, 1, 2, 3}, {0, 2, 3}};
  for (const char* op : kOps)
    for (const auto& axes : patterns)
      for (int keep = 0; keep < 2; ++keep) {
        OpCall c{op, 13, {AttrInts("axes", axes), AttrInt("keepdims", keep)}, {F32(shape, x)}};
        if (std::string(op) == "ReduceSum") {
          c.attrs = {AttrInt("keepdims", keep)};
          c.inputs.push_back(I64({static_cast<int64_t>(axes.size())},
                                 std::vector<double>(axes.begin(), axes.end())));
        }
        Tensor y = RunOne(c);
        ASSERT_TRUE(y.defined()) << op;
        const std::string what = std::string(op) + " keep=" + std::to_string(keep);
        ExpectNear(Values(y), Reference(op, x, shape, axes), 1e-5, what);
        if (!keep) {
          EXPECT_EQ(y.rank(), 4 - static_cast<int>(axes.size())) << what;
        }
      }
}

TEST(Reduce, OddSizesOnBothFastPaths) {
  for (int64_t n : {1, 7, 17, 33, 257}) {
    const Shape shape{3, n};
    const auto x = RandomValues(static_cast<size_t>(3 * n), static_cast<uint32_t>(n));
    for (int64_t axis : {0, 1}) {
      for (const char* op : {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceL2"}) {
        OpCall c{op, 18, {}, {F32(shape, x), I64({1}, {static_cast<double>(axis)})}};
        ExpectNear(Values(RunOne(c)), Reference(op, x, shape, {axis}), 1e-5,
                   std::string(op) + " n=" + std::to_string(n));
      }
    }
  }
}

// Long float32 sums stay accurate on both paths (ops/common/blocked_fold.h): 2^20 + 5 copies of 0.1 along
// the row (a row of 16 sequential lanes would drift by ~1e-3) and down 100003 strided rows of 3
// columns, against float64; Mean, SumSquare and LogSumExp (whose sum of exponentials is the long
// one) as well.
TEST(Reduce, LongFloatSumsStayAccurate) {
  for (int64_t axis : {0, 1}) {
    const int64_t n = axis == 1 ? (int64_t{1} << 20) + 5 : 100003;
    const Shape shape = axis == 1 ? Shape{1, n} : Shape{n, 3};
    const std::vector<double> x(static_cast<size_t>(NumElements(shape)), double(0.1f));
    for (const char* op : {"ReduceSum", "ReduceMean", "ReduceSumSquare", "ReduceLogSumExp"}) {
      OpCall c{op, 18, {}, {F32(shape, x), I64({1}, {static_cast<double>(axis)})}};
      const auto got = Values(RunOne(c));
      const auto want = Reference(op, x, shape, {axis});
      ASSERT_EQ(got.size(), want.size()) << op;
      for (size_t i = 0; i < got.size(); ++i)
        EXPECT_LT(std::fabs(got[i] - want[i]), 4e-6 * std::fabs(want[i]))
            << op << " axis " << axis << " at " << i << ": " << got[i] << " vs " << want[i];
    }
  }
}

TEST(Reduce, DefaultAxesReduceEverythingAndNoopKeepsInput) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor all = RunOne(OpCall{"ReduceSum", 13, {AttrInt("keepdims", 0)}, {x}});
  EXPECT_EQ(all.shape(), Shape{});
  EXPECT_EQ(Values(all), std::vector<double>{21});
  // Empty axes input with noop_with_empty_axes=1: identity.
  Tensor noop = RunOne(OpCall{"ReduceSum", 13, {AttrInt("noop_with_empty_axes", 1)},
                              {x, I64({0}, {})}});
  EXPECT_EQ(noop.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values(noop), Values(x));
  // Empty axes without noop: all axes.
  Tensor red = RunOne(OpCall{"ReduceMean", 18, {}, {x, I64({0}, {})}});
  EXPECT_EQ(red.shape(), (Shape{1, 1}));
  EXPECT_NEAR(Values(red)[0], 3.5, 1e-6);
}

TEST(Reduce, EmptyReductionGivesTheIdentity) {
  Tensor x = Tensor::Empty(DType::kFloat32, {2, 0, 3});
  const std::vector<std::pair<std::string, double>> want = {
      {"ReduceSum", 0}, {"ReduceProd", 1}, {"ReduceMax", -INFINITY}, {"ReduceMin", INFINITY},
      {"ReduceL1", 0}, {"ReduceL2", 0}, {"ReduceSumSquare", 0}, {"ReduceLogSum", -INFINITY},
      {"ReduceLogSumExp", -INFINITY}};
  for (const auto& [op, v] : want) {
    Tensor y = RunOne(OpCall{op, 18, {AttrInt("keepdims", 0)}, {x, I64({1}, {1})}});
    ASSERT_EQ(y.shape(), (Shape{2, 3})) << op;
    for (double g : Values(y)) EXPECT_EQ(g, v) << op;
  }
  Tensor mean = RunOne(OpCall{"ReduceMean", 18, {}, {x, I64({1}, {1})}});
  EXPECT_TRUE(std::isnan(Values(mean)[0]));
  // Reducing a non-empty axis of an empty tensor gives an empty output.
  Tensor e = RunOne(OpCall{"ReduceSum", 13, {}, {x, I64({1}, {2})}});
  EXPECT_EQ(e.shape(), (Shape{2, 0, 1}));
}

TEST(Reduce, IntegerAndHalfDtypes) {
  Tensor xi = MakeTensor(DType::kInt32, {2, 3}, {1, -2, 3, 4, 5, -6});
  Tensor s = RunOne(OpCall{"ReduceSum", 13, {AttrInt("keepdims", 0)}, {xi, I64({1}, {1})}});
  EXPECT_EQ(s.dtype(), DType::kInt32);
  EXPECT_EQ(Values(s), (std::vector<double>{2, 3}));
  Tensor mx = RunOne(OpCall{"ReduceMax", 13, {AttrInts("axes", {0}), AttrInt("keepdims", 0)}, {xi}});
  EXPECT_EQ(Values(mx), (std::vector<double>{4, 5, 3}));
  Tensor l2 = RunOne(OpCall{"ReduceL2", 13, {AttrInts("axes", {1}), AttrInt("keepdims", 0)}, {xi}});
  EXPECT_EQ(l2.dtype(), DType::kInt32);
  EXPECT_EQ(Values(l2), (std::vector<double>{3, 8}));  // trunc(sqrt(14)), trunc(sqrt(77))
  Tensor mean = RunOne(OpCall{"ReduceMean", 13, {AttrInts("axes", {1})}, {xi}});
  EXPECT_EQ(Values(mean), (std::vector<double>{0, 1}));

  Tensor xh = MakeTensor(DType::kFloat16, {2, 2}, {1.5, 2.5, -1, 4});
  Tensor hs = RunOne(OpCall{"ReduceSum", 13, {}, {xh, I64({1}, {0})}});
  EXPECT_EQ(hs.dtype(), DType::kFloat16);
  EXPECT_EQ(Values(hs), (std::vector<double>{0.5, 6.5}));
}

TEST(Reduce, BoolMaxMinAreAnyAll) {
  Tensor b = MakeTensor(DType::kBool, {2, 2}, {1, 0, 1, 1});
  Tensor any = RunOne(OpCall{"ReduceMax", 20, {AttrInt("keepdims", 0)}, {b, I64({1}, {1})}});
  EXPECT_EQ(any.dtype(), DType::kBool);
  EXPECT_EQ(Values(any), (std::vector<double>{1, 1}));
  Tensor all = RunOne(OpCall{"ReduceMin", 20, {AttrInt("keepdims", 0)}, {b, I64({1}, {1})}});
  EXPECT_EQ(Values(all), (std::vector<double>{0, 1}));
  EXPECT_FALSE((OpCall{"ReduceSum", 13, {}, {b}}.Run().ok()));
}

TEST(Reduce, NanPropagatesThroughMaxMin) {
  Tensor x = F32({1, 3}, {1, NAN, 3});
  EXPECT_TRUE(std::isnan(Values(RunOne(OpCall{"ReduceMax", 13, {}, {x}}))[0]));
  EXPECT_TRUE(std::isnan(Values(RunOne(OpCall{"ReduceMin", 13, {}, {x}}))[0]));
}

TEST(Reduce, BadAxesAreErrors) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_FALSE((OpCall{"ReduceSum", 13, {}, {x, I64({1}, {2})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"ReduceSum", 13, {}, {x, I64({2}, {1, -1})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"ReduceMax", 13, {AttrInts("axes", {-3})}, {x}}.Run().ok()));
  EXPECT_FALSE((OpCall{"ReduceSum", 13, {}, {x, F32({1}, {0})}}.Run().ok()));
  // The axes input does not exist before ReduceSum-13.
  EXPECT_FALSE((OpCall{"ReduceSum", 11, {}, {x, I64({1}, {0})}}.Run().ok()));
  auto st = OpCall{"ReduceSum", 13, {}, {x, I64({1}, {5})}}.Run();
  EXPECT_NE(st.status().message().find("ReduceSum"), std::string::npos);
}

TEST(ArgMaxMin, FirstAndLastIndexKeepdimsAndNegativeAxis) {
  Tensor x = F32({2, 4}, {1, 3, 3, 0, 2, 2, 5, 5});
  Tensor a = RunOne(OpCall{"ArgMax", 13, {AttrInt("axis", 1)}, {x}});
  EXPECT_EQ(a.dtype(), DType::kInt64);
  EXPECT_EQ(a.shape(), (Shape{2, 1}));
  EXPECT_EQ(Values(a), (std::vector<double>{1, 2}));
  Tensor b = RunOne(OpCall{"ArgMax", 13, {AttrInt("axis", -1), AttrInt("select_last_index", 1),
                                          AttrInt("keepdims", 0)}, {x}});
  EXPECT_EQ(b.shape(), (Shape{2}));
  EXPECT_EQ(Values(b), (std::vector<double>{2, 3}));
  Tensor c = RunOne(OpCall{"ArgMin", 13, {AttrInt("axis", 0), AttrInt("keepdims", 0)}, {x}});
  EXPECT_EQ(Values(c), (std::vector<double>{0, 1, 0, 0}));
  Tensor d = RunOne(OpCall{"ArgMin", 13, {AttrInt("axis", 1), AttrInt("select_last_index", 1)}, {x}});
  EXPECT_EQ(Values(d), (std::vector<double>{3, 1}));
}

TEST(ArgMaxMin, NanWinsAndErrors) {
  Tensor x = F32({4}, {1, NAN, 7, NAN});
  EXPECT_EQ(Values(RunOne(OpCall{"ArgMax", 13, {}, {x}})), std::vector<double>{1});
  EXPECT_EQ(Values(RunOne(OpCall{"ArgMin", 13, {}, {x}})), std::vector<double>{1});
  EXPECT_EQ(Values(RunOne(OpCall{"ArgMax", 13, {AttrInt("select_last_index", 1)}, {x}})),
            std::vector<double>{3});
  EXPECT_FALSE((OpCall{"ArgMax", 13, {AttrInt("axis", 1)}, {x}}.Run().ok()));
  EXPECT_FALSE((OpCall{"ArgMax", 13, {}, {Tensor::Empty(DType::kFloat32, {0, 2})}}.Run().ok()));
  Tensor e = RunOne(OpCall{"ArgMax", 13, {AttrInt("axis", 1)}, {Tensor::Empty(DType::kFloat32, {0, 2})}});
  EXPECT_EQ(e.shape(), (Shape{0, 1}));
}

// Throughput of the two float32 fast paths; run with --gtest_also_run_disabled_tests.
TEST(Reduce, DISABLED_Bench) {
  const Shape shape{1024, 4096};
  Tensor x = F32(shape, RandomValues(static_cast<size_t>(NumElements(shape)), 3));
  for (int64_t axis : {1, 0}) {
    for (const char* op : {"ReduceSum", "ReduceMax", "ReduceLogSumExp"}) {
      OpCall c{op, 18, {}, {x, I64({1}, {static_cast<double>(axis)})}};
      RunOne(c);
      const std::clock_t t0 = std::clock();  // CPU time: the build machine is shared
      const int reps = 10;
      for (int r = 0; r < reps; ++r) RunOne(c);
      const double s = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC / reps;
      std::printf("%-16s axis=%lld  %.3f ms  %.2f GB/s\n", op, static_cast<long long>(axis), s * 1e3,
                  static_cast<double>(x.nbytes()) / s * 1e-9);
    }
  }
}

}  // namespace
}  // namespace vt::ops
