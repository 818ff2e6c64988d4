// EmbedLayerNormalization against the definition in double: segment and position inputs
// present and absent, position_ids [B, S] and [1, S], mask_index and embedding_sum, float16,
// out-of-range ids and bad shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

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

Tensor I32(const Shape& s, const std::vector<double>& v) { return MakeTensor(DType::kInt32, s, v); }

struct Tables {
  int64_t h, vocab = 11, positions = 9, segments = 3;
  std::vector<double> word, pos, seg, gamma, beta;
  explicit Tables(int64_t hidden) : h(hidden) {
    word = Random(size_t(vocab * h), 1), pos = Random(size_t(positions * h), 2);
    seg = Random(size_t(segments * h), 3), gamma = Random(size_t(h), 4), beta = Random(size_t(h), 5);
  }
  // Normalised sum of the given rows (seg < 0: none) and the sum itself.
  std::pair<std::vector<double>, std::vector<double>> Token(int w, int p, int g, double eps) const {
    std::vector<double> s(static_cast<size_t>(h)), y;
    double m = 0, v = 0;
    for (int64_t i = 0; i < h; ++i) {
      s[size_t(i)] = word[size_t(w * h + i)] + pos[size_t(p * h + i)] + (g >= 0 ? seg[size_t(g * h + i)] : 0.0);
      m += s[size_t(i)];
    }
    m /= double(h);
    for (double e : s) v += (e - m) * (e - m);
    const double inv = 1 / std::sqrt(v / double(h) + eps);
    for (int64_t i = 0; i < h; ++i) y.push_back((s[size_t(i)] - m) * inv * gamma[size_t(i)] + beta[size_t(i)]);
    return {y, s};
  }
};

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " at " << i;
}

TEST(EmbedLayerNorm, AllInputsAndOutputs) {
  for (int64_t h : {1, 7, 33, 257}) {
    const Tables t(h);
    const std::vector<double> ids{1, 2, 10, 4, 0, 3}, segs{0, 1, 2, 1, 1, 0}, mask{1, 1, 0, 1, 1, 1};
    const std::vector<double> pids{5, 0, 8};  // [1, S]
    OpCall c{"EmbedLayerNormalization", 1, {testing::AttrFloat("epsilon", 1e-5f)},
             {I32({2, 3}, ids), I32({2, 3}, segs), F32({t.vocab, h}, t.word), F32({t.positions, h}, t.pos),
              F32({t.segments, h}, t.seg), F32({h}, t.gamma), F32({h}, t.beta), I32({2, 3}, mask), I32({1, 3}, pids)}};
    c.domain = "com.microsoft";
    c.num_outputs = 3;
    auto r = c.Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::vector<double> y, sum;
    for (int k = 0; k < 6; ++k) {
      auto [yt, st] = t.Token(int(ids[size_t(k)]), int(pids[size_t(k % 3)]), int(segs[size_t(k)]), 1e-5);
      y.insert(y.end(), yt.begin(), yt.end());
      sum.insert(sum.end(), st.begin(), st.end());
    }
    ExpectNear(Values((*r)[0].tensor()), y, 1e-5, "output h" + std::to_string(h));
    ExpectNear(Values((*r)[2].tensor()), sum, 1e-6, "embedding_sum");
    EXPECT_EQ((*r)[0].tensor().shape(), (Shape{2, 3, h}));
    EXPECT_EQ(Values((*r)[1].tensor()), (std::vector<double>{2, 3}));  // first 0 of each mask row
    EXPECT_EQ((*r)[1].tensor().dtype(), DType::kInt32);
  }
}

TEST(EmbedLayerNorm, NoSegmentsNoPositionIdsNoMask) {
  const Tables t(16);
  const std::vector<double> ids{3, 7, 1, 9};
  OpCall c{"EmbedLayerNormalization", 1, {},
           {I32({1, 4}, ids), Tensor(), F32({t.vocab, t.h}, t.word), F32({t.positions, t.h}, t.pos), Tensor(),
            F32({t.h}, t.gamma), F32({t.h}, t.beta)}};
  c.domain = "com.microsoft";
  c.absent = {false, true, false, false, true};
  c.num_outputs = 2;
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<double> y;
  for (int k = 0; k < 4; ++k) {
    auto yt = t.Token(int(ids[size_t(k)]), k, -1, 1e-12).first;
    y.insert(y.end(), yt.begin(), yt.end());
  }
  ExpectNear(Values((*r)[0].tensor()), y, 1e-5, "output");
  EXPECT_EQ(Values((*r)[1].tensor()), (std::vector<double>{0}));  // no mask: 0
}

TEST(EmbedLayerNorm, Float16Tables) {
  const Tables t(7);
  OpCall c{"EmbedLayerNormalization", 1, {},
           {I32({1, 2}, {4, 5}), Tensor(), MakeTensor(DType::kFloat16, {t.vocab, 7}, t.word),
            MakeTensor(DType::kFloat16, {t.positions, 7}, t.pos), Tensor(), MakeTensor(DType::kFloat16, {7}, t.gamma),
            MakeTensor(DType::kFloat16, {7}, t.beta)}};
  c.domain = "com.microsoft";
  c.absent = {false, true, false, false, true};
  auto r = c.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().dtype(), DType::kFloat16);
  std::vector<double> y = t.Token(4, 0, -1, 1e-12).first, y2 = t.Token(5, 1, -1, 1e-12).first;
  y.insert(y.end(), y2.begin(), y2.end());
  ExpectNear(Values((*r)[0].tensor()), y, 3e-2, "f16 output");
}

TEST(EmbedLayerNorm, BadInputsNameTheInput) {
  const Tables t(4);
  auto run = [&](const Tensor& ids, const Tensor& word, const std::vector<Value>& tail = {}) {
    std::vector<Value> in{ids, Tensor(), word, F32({t.positions, 4}, t.pos), Tensor(), F32({4}, t.gamma),
                          F32({4}, t.beta)};
    for (auto& v : tail) in.push_back(v);
    OpCall c{"EmbedLayerNormalization", 1, {}, in};
    c.domain = "com.microsoft";
    c.absent = {false, true, false, false, true, false, false, tail.size() > 1};  // mask absent
    auto r = c.Run();
    return r.ok() ? std::string("ok") : r.status().message();
  };
  const Tensor word = F32({t.vocab, 4}, t.word);
  EXPECT_NE(run(I32({1, 2}, {3, 11}), word).find("input 'input_ids' (0): value 11 at [0, 1] is outside word_embedding's 11 rows"),
            std::string::npos);
  EXPECT_NE(run(I32({1, 2}, {3, -1}), word).find("value -1"), std::string::npos);
  EXPECT_NE(run(I32({2}, {3, 1}), word).find("input 'input_ids' (0): expected rank 2"), std::string::npos);
  EXPECT_NE(run(I32({1, 2}, {3, 1}), F32({t.vocab * 4}, t.word)).find("input 'word_embedding' (2)"), std::string::npos);
  EXPECT_NE(run(I32({1, 10}, std::vector<double>(10, 1)), word).find("input 'position_embedding' (3)"), std::string::npos);
  EXPECT_NE(run(I32({1, 2}, {3, 1}), word, {I32({1, 3}, {1, 1, 1})}).find("input 'mask' (7)"), std::string::npos);
  EXPECT_NE(run(I32({1, 2}, {3, 1}), word, {Tensor(), I32({1, 2}, {0, 9})}).find("input 'position_ids' (8): value 9"),
            std::string::npos);
}

}  // namespace
}  // namespace vt::ops
