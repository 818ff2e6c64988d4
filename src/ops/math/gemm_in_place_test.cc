// MatMul and Gemm by a constant weight whose rows M are known and few: the weight is read in
// place in its source layout (forms row f32_source_in_place, kernels/gemm/f32_gemv.h). The
// outputs must equal the packed path bit for bit where the summation order is the same
// (MatMul, Gemm transB = 0) and stay within float32 rounding of it and of a float64 reference
// otherwise (Gemm transB = 1); unknown or larger M keeps the packed panels.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "ops/nn/nn_test_util.h"

namespace vt::ops {
namespace {

using namespace nntest;

struct Outcome {
  Tensor y;
  std::string outcome;  // the weight provider's decision for B
};

Outcome RunCall(NnCall call, bool static_feeds) {
  WeightProvider provider(HostIsa(), WeightProfile::kExact, nullptr);
  call.static_feeds = static_feeds;
  call.provider = &provider;
  auto r = call.Run();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  Outcome o;
  if (r.ok()) o.y = (*r)[0].tensor();
  if (!provider.decisions().empty()) o.outcome = provider.decisions()[0].outcome;
  return o;
}

bool InPlace(const Outcome& o) { return o.outcome.find("read in place") != std::string::npos; }

void ExpectSameBits(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  ASSERT_EQ(std::memcmp(got.data<float>(), want.data<float>(), got.nbytes()), 0) << what;
}

TEST(GemmInPlace, MatMulOfFewRowsReadsTheSourceWithTheSameBits) {
  // Weights of 1 MiB or more with at most 4 rows are read in place; the others are packed.
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{1, 1030}, {1030, 257}},       {{1030}, {1030, 300}},        {{2, 1, 1030}, {1030, 257}},
      {{4, 257}, {257, 1031}},        {{8, 1030}, {1030, 257}},     {{1, 300}, {300, 257}},
  };
  for (const auto& [sa, sb] : cases)
    for (int threads : {1, 2}) {
      const std::string what = "MatMul " + ShapeToString(sa) + " x " + ShapeToString(sb);
      NnCall call;
      call.op = "MatMul";
      call.opset = 13;
      call.inputs = {testing::F32(sa, Random(static_cast<size_t>(NumElements(sa)), 1)),
                     testing::F32(sb, Random(static_cast<size_t>(NumElements(sb)), 2))};
      call.sources = {Source::kFeed, Source::kInitializer};
      call.threads = threads;
      const Outcome packed = RunCall(call, false), in_place = RunCall(call, true);
      const int64_t rows = NumElements(sa) / sa.back();
      EXPECT_FALSE(InPlace(packed)) << what << ": " << packed.outcome;
      EXPECT_EQ(InPlace(in_place), rows <= 4 && NumElements(sb) * 4 >= (1 << 20))
          << what << ": " << in_place.outcome;
      ExpectSameBits(in_place.y, packed.y, what);
    }
}

TEST(GemmInPlace, GemmInBothStorageOrders) {
  const int64_t K = 1031, N = 257;
  for (int64_t M : {1, 3, 4})
    for (int ta : {0, 1})
      for (int tb : {0, 1})
        for (int cform : {0, 1, 2}) {  // no C, C [N] with beta 0.5, full C [M, N]
          const std::string what = "Gemm M=" + std::to_string(M) + " ta" + std::to_string(ta) +
                                   " tb" + std::to_string(tb) + " C" + std::to_string(cform);
          const Shape sa = ta ? Shape{K, M} : Shape{M, K}, sb = tb ? Shape{N, K} : Shape{K, N};
          const auto a = Random(static_cast<size_t>(M * K), 3), b = Random(static_cast<size_t>(K * N), 4);
          NnCall call;
          call.op = "Gemm";
          call.opset = 13;
          call.attrs = {AttrInt("transA", ta), AttrInt("transB", tb), AttrFloat("alpha", 0.75f),
                        AttrFloat("beta", 0.5f)};
          call.inputs = {testing::F32(sa, a), testing::F32(sb, b)};
          call.sources = {Source::kFeed, Source::kInitializer};
          std::vector<double> c;
          if (cform != 0) {
            const Shape sc = cform == 1 ? Shape{N} : Shape{M, N};
            c = Random(static_cast<size_t>(NumElements(sc)), 5);
            call.inputs.push_back(testing::F32(sc, c));
          }
          const Outcome packed = RunCall(call, false), in_place = RunCall(call, true);
          EXPECT_TRUE(InPlace(in_place)) << what << ": " << in_place.outcome;
          if (tb == 0) {
            ExpectSameBits(in_place.y, packed.y, what);
            continue;
          }
          // Another summation order: close to the packed path and to float64.
          std::vector<double> want(static_cast<size_t>(M * N));
          for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
              double acc = 0;
              for (int64_t k = 0; k < K; ++k)
                acc += a[static_cast<size_t>(ta ? k * M + m : m * K + k)] *
                       b[static_cast<size_t>(n * K + k)];
              double v = 0.75 * acc;
              if (cform == 1) v += 0.5 * c[static_cast<size_t>(n)];
              if (cform == 2) v += 0.5 * c[static_cast<size_t>(m * N + n)];
              want[static_cast<size_t>(m * N + n)] = v;
            }
          ExpectClose(in_place.y, {M, N}, want, 1e-5, what + " vs float64");
          ExpectClose(in_place.y, {M, N}, testing::Values(packed.y), 1e-5, what + " vs packed");
        }
}

}  // namespace
}  // namespace vt::ops
