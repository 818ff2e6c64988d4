// FusedMatMul against a double reference of its definition: transA / transB, transBatchA /
// transBatchB on 3-D and 4-D operands, batch broadcast, 1-D operands, alpha, float16; errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrFloat;
using testing::AttrInt;
using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::Values;

std::vector<double> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (auto& e : v) e = static_cast<float>(u(rng));
  return v;
}

// Dense row-major array with its shape.
struct Arr {
  Shape s;
  std::vector<double> v;
  double at(const std::vector<int64_t>& idx) const {
    int64_t o = 0;
    for (size_t i = 0; i < s.size(); ++i) o = o * s[i] + idx[i];
    return v[size_t(o)];
  }
};

Arr Permute(const Arr& a, const std::vector<size_t>& perm) {
  Arr r;
  for (size_t p : perm) r.s.push_back(a.s[p]);
  r.v.resize(a.v.size());
  std::vector<int64_t> idx(r.s.size(), 0), src(r.s.size());
  for (size_t o = 0; o < r.v.size(); ++o) {
    for (size_t i = 0; i < perm.size(); ++i) src[perm[i]] = idx[i];
    r.v[o] = a.at(src);
    for (size_t d = r.s.size(); d-- > 0;)
      if (++idx[d] < r.s[d]) break;
      else idx[d] = 0;
  }
  return r;
}

// The definition, written out: transBatch, then trans, then numpy matmul with broadcast.
Arr Reference(Arr a, Arr b, bool ta, bool tb, bool tba, bool tbb, double alpha) {
  auto prep = [](Arr x, bool t, bool tbatch) {
    const size_t r = x.s.size();
    if (r == 1) return x;
    std::vector<size_t> perm;
    for (size_t i = 0; i < r; ++i) perm.push_back(i);
    if (tbatch) {
      perm.clear();
      for (size_t i = 1; i + 1 < r; ++i) perm.push_back(i);
      perm.push_back(0), perm.push_back(r - 1);
    }
    if (t) std::swap(perm[r - 2], perm[r - 1]);
    return Permute(x, perm);
  };
  a = prep(a, ta, tba), b = prep(b, tb, tbb);
  const bool a1 = a.s.size() == 1, b1 = b.s.size() == 1;
  if (a1) a.s.insert(a.s.begin(), 1);
  if (b1) b.s.push_back(1);
  const int64_t M = a.s[a.s.size() - 2], K = a.s.back(), N = b.s.back();
  Shape ba(a.s.begin(), a.s.end() - 2), bb(b.s.begin(), b.s.end() - 2), batch;
  const size_t rank = std::max(ba.size(), bb.size());
  while (ba.size() < rank) ba.insert(ba.begin(), 1);
  while (bb.size() < rank) bb.insert(bb.begin(), 1);
  for (size_t i = 0; i < rank; ++i) batch.push_back(std::max(ba[i], bb[i]));
  Arr y;
  y.s = batch;
  if (!a1) y.s.push_back(M);
  if (!b1) y.s.push_back(N);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t o = 0; o < NumElements(batch); ++o) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) {
          std::vector<int64_t> ia, ib;
          for (size_t i = 0; i < rank; ++i) ia.push_back(ba[i] == 1 ? 0 : idx[i]), ib.push_back(bb[i] == 1 ? 0 : idx[i]);
          int64_t oa = 0, ob = 0;
          for (size_t i = 0; i < rank; ++i) oa = oa * ba[i] + ia[i], ob = ob * bb[i] + ib[i];
          acc += a.v[size_t((oa * M + m) * K + k)] * b.v[size_t((ob * K + k) * N + n)];
        }
        y.v.push_back(alpha * acc);
      }
    for (size_t d = rank; d-- > 0;)
      if (++idx[d] < batch[d]) break;
      else idx[d] = 0;
  }
  return y;
}

struct Case {
  Shape a, b;
  bool ta, tb, tba, tbb;
  float alpha;
};

TEST(FusedMatMul, MatchesTheDefinition) {
  const Case cases[] = {
      {{3, 4}, {4, 5}, false, false, false, false, 1.0f},
      {{4, 3}, {4, 5}, true, false, false, false, 0.5f},
      {{3, 4}, {5, 4}, false, true, false, false, 2.0f},
      {{4, 3}, {5, 4}, true, true, false, false, -1.0f},
      {{2, 7, 33}, {33, 17}, false, false, false, false, 1.0f},    // batches stacked along M
      {{2, 33, 7}, {17, 33}, true, true, false, false, 1.0f},
      {{2, 1, 4, 3}, {3, 3, 5}, false, false, false, false, 1.5f},  // broadcast both ways
      {{4, 2, 3}, {2, 3, 5}, false, false, true, false, 1.0f},
      {{3, 2, 4}, {2, 4, 5}, false, false, true, false, 1.0f},
      {{3, 2, 4}, {2, 3, 5}, true, false, true, false, 1.0f},
      {{2, 4, 3}, {3, 2, 5}, false, false, false, true, 1.0f},
      {{2, 4, 3}, {5, 2, 3}, false, true, false, true, 1.0f},
      {{4, 2, 6, 3}, {2, 6, 3, 5}, false, false, true, false, 0.25f},
      {{4, 2, 6, 3}, {3, 2, 6, 5}, false, false, true, true, 1.0f},
      {{3, 2, 6, 4}, {5, 2, 6, 3}, true, true, true, true, 1.0f},
      {{3}, {3, 5}, true, false, false, false, 1.0f},  // 1-D: no transpose
      {{4, 3}, {3}, false, true, false, false, 1.0f},
      {{2, 2, 3}, {3}, false, false, false, false, 1.0f},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    const Arr a{c.a, Random(size_t(NumElements(c.a)), seed++)}, b{c.b, Random(size_t(NumElements(c.b)), seed++)};
    const Arr want = Reference(a, b, c.ta, c.tb, c.tba, c.tbb, c.alpha);
    OpCall call{"FusedMatMul", 1,
                {AttrFloat("alpha", c.alpha), AttrInt("transA", c.ta), AttrInt("transB", c.tb),
                 AttrInt("transBatchA", c.tba), AttrInt("transBatchB", c.tbb)},
                {F32(c.a, a.v), F32(c.b, b.v)}};
    call.domain = "com.microsoft";
    auto r = call.Run();
    const std::string what = ShapeToString(c.a) + " x " + ShapeToString(c.b) + " tA" + std::to_string(c.ta) +
                             " tB" + std::to_string(c.tb) + " tbA" + std::to_string(c.tba) + " tbB" +
                             std::to_string(c.tbb);
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().ToString();
    EXPECT_EQ((*r)[0].tensor().shape(), want.s) << what;
    const auto got = Values((*r)[0].tensor());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want.v[i], 1e-5) << what << " at " << i;
  }
}

TEST(FusedMatMul, Float16AndErrors) {
  const auto av = Random(12, 1), bv = Random(15, 2);
  OpCall h{"FusedMatMul", 1, {AttrInt("transA", 1)}, {MakeTensor(DType::kFloat16, {4, 3}, av), MakeTensor(DType::kFloat16, {4, 5}, bv)}};
  h.domain = "com.microsoft";
  auto r = h.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().dtype(), DType::kFloat16);
  auto msg = [](const Case& c) {
    OpCall call{"FusedMatMul", 1, {AttrInt("transA", c.ta), AttrInt("transBatchA", c.tba)},
                {F32(c.a, Random(size_t(NumElements(c.a)), 3)), F32(c.b, Random(size_t(NumElements(c.b)), 4))}};
    call.domain = "com.microsoft";
    auto res = call.Run();
    return res.ok() ? std::string("ok") : res.status().message();
  };
  EXPECT_NE(msg({{3, 4}, {5, 6}, false, false, false, false, 1}).find("inner dimensions differ"), std::string::npos);
  EXPECT_NE(msg({{4, 3}, {3, 5}, false, false, true, false, 1}).find("same rank >= 3"), std::string::npos);
  EXPECT_NE(msg({{2, 3, 4}, {3, 4, 5}, false, false, false, false, 1}).find("do not broadcast"), std::string::npos);
}

}  // namespace
}  // namespace vt::ops
