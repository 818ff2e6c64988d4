// The attention driver against a plain double evaluation of its contract (strided operands,
// GQA groups, per-batch keys and positions, clamped rows, additive terms), on every kernel row
// and thread count; the KV cache append; one rotated row.
#include "ops/transformer/attention_driver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ops/transformer/kv_cache.h"
#include "ops/transformer/rotary.h"

namespace vt::ops {
namespace {

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(g);
  return v;
}

// out[b, h, i, :] in double, straight from the problem's definition.
std::vector<double> Expected(const AttentionProblem& p) {
  const size_t group = p.q_heads / p.kv_heads;
  std::vector<double> out(p.batch * p.q_heads * p.q_len * p.v_head_size, 0.0);
  for (size_t b = 0; b < p.batch; ++b)
    for (size_t h = 0; h < p.q_heads; ++h)
      for (size_t i = 0; i < p.q_len; ++i) {
        const BatchKeys& k = p.keys[b];
        const size_t row = std::min(i, k.clamp_row == SIZE_MAX ? i : k.clamp_row - 1);
        const int64_t pos = k.q_pos + static_cast<int64_t>(row);
        const float* q = p.q.data + b * p.q.batch + h * p.q.head + i * p.q.row;
        std::vector<double> s;
        std::vector<size_t> js;
        for (size_t j = k.kv_begin; j < k.kv_end; ++j) {
          if (p.causal && static_cast<int64_t>(j) > pos) continue;
          if (p.window_left >= 0 && static_cast<int64_t>(j) < pos - p.window_left) continue;
          const float* kr = static_cast<const float*>(p.k.data) + b * p.k.batch +
                            (h / group) * p.k.head + j * p.k.row;
          double dot = 0;
          for (size_t d = 0; d < p.head_size; ++d) dot += double(q[d]) * kr[d];
          double v = dot * p.scale;
          if (p.bias.data)
            v += p.bias.data[b * p.bias.batch + h * p.bias.head + i * p.bias.row +
                             j * p.bias.key];
          s.push_back(v), js.push_back(j);
        }
        if (s.empty()) continue;
        double m = -INFINITY, l = 0;
        for (double v : s) m = std::max(m, v);
        for (double& v : s) l += v = std::exp(v - m);
        double* o = out.data() + ((b * p.q_heads + h) * p.q_len + i) * p.v_head_size;
        for (size_t t = 0; t < js.size(); ++t) {
          const float* vr = static_cast<const float*>(p.v.data) + b * p.v.batch +
                            (h / group) * p.v.head + js[t] * p.v.row;
          for (size_t e = 0; e < p.v_head_size; ++e) o[e] += s[t] / l * vr[e];
        }
      }
  return out;
}

TEST(AttentionDriver, GqaStridesClampsAndThreadsMatchTheDefinition) {
  // B 2, 8 query heads over 2 KV heads, 13 rows, head size 24, keys in a BNSH cache of 40
  // rows; Q and out BSNH; batch 1 has right-padded rows clamped past its 9 keys.
  const size_t B = 2, N = 8, KV = 2, S = 13, H = 24, cap = 40;
  std::vector<float> q = Random(B * S * N * H, 1), k = Random(B * KV * cap * H, 2),
                     v = Random(B * KV * cap * H, 3), bias = Random(B * S * cap, 4);
  AttentionProblem p;
  p.batch = B, p.q_heads = N, p.kv_heads = KV, p.q_len = S, p.head_size = H, p.v_head_size = H;
  p.q = {q.data(), static_cast<ptrdiff_t>(S * N * H), static_cast<ptrdiff_t>(H),
         static_cast<ptrdiff_t>(N * H)};
  p.k = {k.data(), static_cast<ptrdiff_t>(KV * cap * H), static_cast<ptrdiff_t>(cap * H),
         static_cast<ptrdiff_t>(H)};
  p.v = {v.data(), p.k.batch, p.k.head, p.k.row};
  p.keys = {{0, 30, 17, SIZE_MAX}, {0, 9, 0, 9}};
  p.causal = true;
  p.window_left = 6;
  p.scale = 0.3f;
  p.bias = {bias.data(), static_cast<ptrdiff_t>(S * cap), 0, static_cast<ptrdiff_t>(cap), 1};
  const std::vector<double> want = Expected(p);
  for (const kernels::AttentionKernel& kern : kernels::AttentionKernels()) {
    if (!kern.supported()) continue;
    for (int threads : {1, 3}) {
      std::vector<float> out(B * S * N * H, 7.0f);
      p.out = {out.data(), p.q.batch, p.q.head, p.q.row};
      RunAttention(p, kern, threads);
      for (size_t b = 0; b < B; ++b)
        for (size_t h = 0; h < N; ++h)
          for (size_t i = 0; i < S; ++i)
            for (size_t e = 0; e < H; ++e) {
              const double w = want[((b * N + h) * S + i) * H + e];
              const float got = out[((b * S + i) * N + h) * H + e];
              ASSERT_NEAR(got, w, 2e-5) << kern.name << " threads " << threads << " b " << b
                                        << " h " << h << " row " << i << " e " << e;
            }
    }
  }
}

TEST(KvCache, AppendCopiesPastWritesNewRowsAndZerosTheRest) {
  KvAppend a;
  a.batch = 2, a.heads = 2, a.head_size = 3, a.capacity = 6, a.past_capacity = 4;
  a.past_rows = {4, 1}, a.new_at = {4, 2}, a.new_rows = 2;
  std::vector<float> past(2 * 2 * 4 * 3);
  for (size_t i = 0; i < past.size(); ++i) past[i] = 100.0f + static_cast<float>(i);
  a.past = past.data();
  std::vector<float> present(2 * 2 * 6 * 3, -1.0f);
  AppendKv(a, sizeof(float), present.data(), [](size_t b, size_t h, size_t r, void* dst) {
    for (int d = 0; d < 3; ++d)
      static_cast<float*>(dst)[d] = static_cast<float>(1000 * b + 100 * h + 10 * r + d);
  }, 2);
  for (size_t b = 0; b < 2; ++b)
    for (size_t h = 0; h < 2; ++h)
      for (size_t r = 0; r < 6; ++r)
        for (size_t d = 0; d < 3; ++d) {
          const float got = present[((b * 2 + h) * 6 + r) * 3 + d];
          float want = 0.0f;
          if (r < a.past_rows[b]) want = past[((b * 2 + h) * 4 + r) * 3 + d];
          if (r >= a.new_at[b] && r < a.new_at[b] + 2)
            want = static_cast<float>(1000 * b + 100 * h + 10 * (r - a.new_at[b]) + d);
          EXPECT_EQ(got, want) << b << " " << h << " " << r << " " << d;
        }
}

TEST(Rotary, HalvesInterleavedAndPassThrough) {
  const float in[7] = {1, 2, 3, 4, 5, 6, 7};
  const float cos[2] = {0.5f, -1.0f}, sin[2] = {0.25f, 2.0f};
  float out[7];
  RotateRow(in, out, cos, sin, 4, 7, false);  // pairs (1, 3), (2, 4)
  const float want_half[7] = {1 * 0.5f - 3 * 0.25f, 2 * -1.0f - 4 * 2.0f, 1 * 0.25f + 3 * 0.5f,
                              2 * 2.0f + 4 * -1.0f, 5, 6, 7};
  for (int d = 0; d < 7; ++d) EXPECT_FLOAT_EQ(out[d], want_half[d]) << d;
  RotateRow(in, out, cos, sin, 4, 7, true);  // pairs (1, 2), (3, 4)
  const float want_int[7] = {1 * 0.5f - 2 * 0.25f, 1 * 0.25f + 2 * 0.5f, 3 * -1.0f - 4 * 2.0f,
                             3 * 2.0f + 4 * -1.0f, 5, 6, 7};
  for (int d = 0; d < 7; ++d) EXPECT_FLOAT_EQ(out[d], want_int[d]) << d;
}

}  // namespace
}  // namespace vt::ops

namespace vt::ops {
namespace {

TEST(KvCacheGrowth, GrowsOnlyTheLatestEndOfItsOwnCaches) {
  KvCacheGrowth g;
  Tensor k = g.Allocate(DType::kFloat32, 1, 2, 5, 4), v = g.Allocate(DType::kFloat32, 1, 2, 5, 4);
  EXPECT_EQ(KvRowsPerHead(k), 128);  // 5 + 64 rounded up to 64
  Tensor k6, v6, again_k, again_v;
  ASSERT_TRUE(g.Grow(k, v, 6, &k6, &v6));
  EXPECT_EQ(k6.shape(), (Shape{1, 2, 6, 4}));
  EXPECT_EQ(k6.storage(), k.storage());
  // A second append from the 5-row view would overwrite row 5 of the 6-row one.
  EXPECT_FALSE(g.Grow(k, v, 6, &again_k, &again_v));
  EXPECT_TRUE(g.Grow(k6, v6, 128, &again_k, &again_v));
  EXPECT_FALSE(g.Grow(again_k, again_v, 129, &k6, &v6));  // past the capacity
  Tensor foreign = Tensor::Zeros(DType::kFloat32, {1, 2, 5, 4});
  EXPECT_FALSE(g.Grow(foreign, foreign, 6, &k6, &v6));
}

}  // namespace
}  // namespace vt::ops
