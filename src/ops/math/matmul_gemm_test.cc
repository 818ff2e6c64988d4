// MatMul (numpy broadcasting, 1-D operands, prepacked B) and Gemm (transposes, alpha/beta,
// every C broadcast form, prepacked B) against double references, plus integer paths.
#include <gtest/gtest.h>

#include "ops/nn/nn_test_util.h"

namespace vt::ops {
namespace {

using namespace nntest;

std::vector<double> RefMatMul(const Shape& sa, const std::vector<double>& a, const Shape& sb,
                              const std::vector<double>& b, Shape* ys) {
  Shape pa = sa.size() == 1 ? Shape{1, sa[0]} : sa;
  Shape pb = sb.size() == 1 ? Shape{sb[0], 1} : sb;
  const int64_t M = pa[pa.size() - 2], K = pa.back(), N = pb.back();
  Shape ba(pa.begin(), pa.end() - 2), bb(pb.begin(), pb.end() - 2);
  const size_t r = std::max(ba.size(), bb.size());
  ba.insert(ba.begin(), r - ba.size(), 1);
  bb.insert(bb.begin(), r - bb.size(), 1);
  Shape batch(r);
  for (size_t i = 0; i < r; ++i) batch[i] = std::max(ba[i], bb[i]);
  *ys = batch;
  if (sa.size() != 1) ys->push_back(M);
  if (sb.size() != 1) ys->push_back(N);
  std::vector<double> y;
  ForEachIndex(batch, [&](const std::vector<int64_t>& bi) {
    std::vector<int64_t> ia(r), ib(r);
    for (size_t i = 0; i < r; ++i) {
      ia[i] = ba[i] == 1 ? 0 : bi[i];
      ib[i] = bb[i] == 1 ? 0 : bi[i];
    }
    const int64_t oa = Flat(ba, ia) * M * K, ob = Flat(bb, ib) * K * N;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += a[static_cast<size_t>(oa + m * K + k)] * b[static_cast<size_t>(ob + k * N + n)];
        y.push_back(acc);
      }
  });
  if (batch.empty() && y.empty()) y.push_back(0);
  return y;
}

TEST(MatMul, BroadcastingAndPrepackedB) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 4}, {4, 5}},          {{7}, {7, 3}},          {{2, 5}, {5}},
      {{6}, {6}},                {{2, 3, 4}, {4, 33}},   {{2, 1, 3, 4}, {5, 4, 2}},
      {{1, 17, 9}, {3, 9, 40}},  {{4, 2, 7}, {4, 7, 1}}, {{40, 120}, {120, 70}},
      {{3, 0, 4}, {4, 2}},       {{2, 3, 0}, {0, 5}},
  };
  for (const auto& [sa, sb] : cases)
    for (Source s : {Source::kFeed, Source::kInitializer, Source::kConstantNode})
      for (int threads : {1, 2}) {
        const auto a = Random(static_cast<size_t>(NumElements(sa)), 1);
        const auto b = Random(static_cast<size_t>(NumElements(sb)), 2);
        Shape ys;
        const auto want = RefMatMul(sa, a, sb, b, &ys);
        NnCall call;
        call.op = "MatMul";
        call.opset = 13;
        call.inputs = {testing::F32(sa, a), testing::F32(sb, b)};
        call.sources = {Source::kFeed, s};
        call.threads = threads;
        auto r = call.Run();
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        ExpectClose((*r)[0].tensor(), ys,
                    NumElements(ys) == 0 ? std::vector<double>{} : want, 1e-5,
                    "MatMul " + ShapeToString(sa) + " x " + ShapeToString(sb));
      }
}

TEST(MatMul, IntegerAndDoubleAndErrors) {
  NnCall call;
  call.op = "MatMul";
  call.opset = 13;
  call.inputs = {testing::MakeTensor(DType::kInt32, {2, 2}, {1, 2, 3, 4}),
                 testing::MakeTensor(DType::kInt32, {2, 2}, {5, 6, 7, 8})};
  auto r = call.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(testing::Values((*r)[0].tensor()), (std::vector<double>{19, 22, 43, 50}));
  call.inputs = {testing::MakeTensor(DType::kFloat64, {1, 2}, {0.1, 0.2}),
                 testing::MakeTensor(DType::kFloat64, {2, 1}, {3, 4})};
  r = call.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR(testing::Values((*r)[0].tensor())[0], 1.1, 1e-6);
  call.inputs = {testing::Iota({2, 3}), testing::Iota({4, 2})};
  EXPECT_FALSE(call.Run().ok());
  call.inputs = {testing::Iota({2, 2, 3}), testing::Iota({3, 3, 2})};
  EXPECT_FALSE(call.Run().ok());
}

TEST(Gemm, TransposesAlphaBetaAndEveryCForm) {
  const int64_t M = 9, N = 37, K = 13;
  const std::vector<Shape> c_shapes = {{}, {1}, {N}, {1, N}, {M, 1}, {M, N}, {1, 1}};
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (size_t ci = 0; ci <= c_shapes.size(); ++ci)
        for (Source s : {Source::kFeed, Source::kInitializer}) {
          const Shape sa = ta ? Shape{K, M} : Shape{M, K};
          const Shape sb = tb ? Shape{N, K} : Shape{K, N};
          const auto a = Random(static_cast<size_t>(M * K), 7);
          const auto b = Random(static_cast<size_t>(K * N), 8);
          const bool has_c = ci < c_shapes.size();
          const Shape sc = has_c ? c_shapes[ci] : Shape{};
          const auto c = Random(static_cast<size_t>(NumElements(sc)), 9);
          const double alpha = 0.5, beta = has_c && ci % 2 ? 2.0 : 1.0;
          std::vector<double> want(static_cast<size_t>(M * N));
          for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
              double acc = 0;
              for (int64_t k = 0; k < K; ++k)
                acc += a[static_cast<size_t>(ta ? k * M + m : m * K + k)] *
                       b[static_cast<size_t>(tb ? n * K + k : k * N + n)];
              double cv = 0;
              if (has_c) {
                const int64_t cr = sc.size() == 2 && sc[0] == M ? m : 0;
                const int64_t cc = !sc.empty() && sc.back() == N ? n : 0;
                cv = c[static_cast<size_t>(cr * (sc.size() == 2 ? sc[1] : 0) + cc)];
              }
              want[static_cast<size_t>(m * N + n)] = alpha * acc + beta * cv;
            }
          NnCall call;
          call.op = "Gemm";
          call.opset = 13;
          call.inputs = {testing::F32(sa, a), testing::F32(sb, b),
                         has_c ? testing::F32(sc, c) : Tensor()};
          call.sources = {Source::kFeed, s, Source::kFeed};
          call.attrs = {AttrInt("transA", ta), AttrInt("transB", tb), AttrFloat("alpha", 0.5f),
                        AttrFloat("beta", static_cast<float>(beta))};
          auto r = call.Run();
          ASSERT_TRUE(r.ok()) << r.status().ToString();
          ExpectClose((*r)[0].tensor(), {M, N}, want, 1e-5,
                      "Gemm ta" + std::to_string(ta) + " tb" + std::to_string(tb) + " C" +
                          (has_c ? ShapeToString(sc) : "none"));
        }
}

TEST(MatMul, Float64KeepsDoublePrecisionOnOddSizes) {
  // Values whose products and sums need more than float32's 24 bits: a float32 GEMM would be off
  // by ~1e-7 relative; the float64 path must agree with the double reference to ~1e-15.
  for (const auto& [sa, sb] : std::vector<std::pair<Shape, Shape>>{{{7, 17}, {17, 33}},
                                                                  {{3, 1, 5, 17}, {2, 17, 7}},
                                                                  {{17}, {1, 17, 257}}}) {
    std::vector<double> a(static_cast<size_t>(NumElements(sa))), b(static_cast<size_t>(NumElements(sb)));
    for (size_t i = 0; i < a.size(); ++i) a[i] = 1.0 + std::sin(0.37 * i) * 1e-3 + 1.0 / 3.0;
    for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.91 * i) + 1e-9 * i;
    NnCall call;
    call.op = "MatMul";
    call.opset = 13;
    call.inputs = {testing::MakeTensor(DType::kFloat64, sa, a), testing::MakeTensor(DType::kFloat64, sb, b)};
    auto r = call.Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    Shape ys;
    const std::vector<double> want = RefMatMul(sa, a, sb, b, &ys);
    ASSERT_EQ((*r)[0].tensor().shape(), ys);
    ASSERT_EQ((*r)[0].tensor().dtype(), DType::kFloat64);
    const std::vector<double> got = testing::Values((*r)[0].tensor());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-13 * (1 + std::fabs(want[i])));
  }
}

TEST(Gemm, Float64KeepsDoublePrecision) {
  const int64_t M = 7, K = 17, N = 33;
  std::vector<double> a(M * K), b(N * K), c(N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 1.0 / 3.0 + std::sin(0.37 * i) * 1e-3;
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.91 * i) + 1e-9 * i;
  for (size_t i = 0; i < c.size(); ++i) c[i] = 1e-8 * i;
  NnCall call;
  call.op = "Gemm";
  call.opset = 13;
  call.attrs = {AttrInt("transB", 1), AttrFloat("alpha", 0.5f), AttrFloat("beta", 2.0f)};
  call.inputs = {testing::MakeTensor(DType::kFloat64, {M, K}, a), testing::MakeTensor(DType::kFloat64, {N, K}, b),
                 testing::MakeTensor(DType::kFloat64, {N}, c)};
  auto r = call.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<double> got = testing::Values((*r)[0].tensor());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += a[static_cast<size_t>(m * K + k)] * b[static_cast<size_t>(n * K + k)];
      const double want = 0.5 * acc + 2.0 * c[static_cast<size_t>(n)];
      ASSERT_NEAR(got[static_cast<size_t>(m * N + n)], want, 1e-13 * (1 + std::fabs(want)));
    }
}

TEST(Gemm, ErrorsAndIntegers) {
  NnCall call;
  call.op = "Gemm";
  call.opset = 13;
  call.inputs = {testing::Iota({2, 3}), testing::Iota({2, 3})};
  EXPECT_FALSE(call.Run().ok());
  call.inputs = {testing::Iota({2, 3}), testing::Iota({3, 4}), testing::Iota({3, 4})};
  EXPECT_FALSE(call.Run().ok());
  call.inputs = {testing::MakeTensor(DType::kInt64, {1, 2}, {1, 2}),
                 testing::MakeTensor(DType::kInt64, {2, 1}, {3, 4}),
                 testing::MakeTensor(DType::kInt64, {1}, {5})};
  auto r = call.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(testing::Values((*r)[0].tensor()), (std::vector<double>{16}));
}

}  // namespace
}  // namespace vt::ops
