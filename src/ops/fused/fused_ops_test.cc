// The ai.vtensor operators of graph/fused_ops.h against their definitions in double: Attention
// (head-major and [B, S, N*D] operands, grouped-query heads, a broadcast additive mask, rows
// masked entirely), RotaryEmbedding (broadcast cos / sin, a strided X) and Activation (SiLU,
// SwiGLU, GELU), and their errors. Dense needs a constant weight: src/passes/fuse_matmul_bias_test.cc
// runs it in a graph.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/common/op_test_util.h"
#include "vtensor/graph/fused_ops.h"

namespace vt::ops {
namespace {

using testing::AttrFloat;
using testing::AttrInt;
using testing::AttrString;
using testing::F32;
using testing::OpCall;
using testing::Values;

std::vector<double> Random(size_t n, uint32_t seed, double lo = -2, double hi = 2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto& e : v) e = static_cast<float>(u(rng));
  return v;
}

Expected<std::vector<Value>> RunVt(const std::string& op, std::vector<Value> in, std::vector<Attribute> attrs) {
  OpCall c{op, 1, std::move(attrs), std::move(in)};
  c.domain = kVtDomain;
  return c.Run();
}

std::string Message(const Expected<std::vector<Value>>& r) { return r.ok() ? "ok" : r.status().message(); }

// softmax(scale q k^T + mask) v for head-major q [B, N, S, D], k / v [B, Nkv, T, D], mask [B, 1, 1, T].
std::vector<double> AttentionRef(const std::vector<double>& q, const std::vector<double>& k,
                                 const std::vector<double>& v, const std::vector<double>& mask, int64_t b,
                                 int64_t n, int64_t nkv, int64_t s, int64_t t, int64_t d, double scale) {
  std::vector<double> out(static_cast<size_t>(b * n * s * d), 0.0);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t h = 0; h < n; ++h) {
      const int64_t kh = h / (n / nkv);
      for (int64_t i = 0; i < s; ++i) {
        std::vector<double> p(static_cast<size_t>(t));
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < t; ++j) {
          double dot = 0;
          for (int64_t e = 0; e < d; ++e)
            dot += q[((bi * n + h) * s + i) * d + e] * k[((bi * nkv + kh) * t + j) * d + e];
          p[j] = dot * scale + mask[bi * t + j];
          mx = std::max(mx, p[j]);
        }
        for (auto& x : p) sum += (x = std::exp(x - mx));
        for (int64_t j = 0; j < t; ++j)
          for (int64_t e = 0; e < d; ++e)
            out[((bi * n + h) * s + i) * d + e] += p[j] / sum * v[((bi * nkv + kh) * t + j) * d + e];
      }
    }
  return out;
}

// [B, H, S, D] -> [B, S, H*D]
std::vector<double> ToBsh(const std::vector<double>& x, int64_t b, int64_t h, int64_t s, int64_t d) {
  std::vector<double> y(x.size());
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi)
      for (int64_t si = 0; si < s; ++si)
        for (int64_t e = 0; e < d; ++e) y[((bi * s + si) * h + hi) * d + e] = x[((bi * h + hi) * s + si) * d + e];
  return y;
}

TEST(FusedAttention, HeadMajorAndBshOperandsWithGroupedHeadsAndMask) {
  const int64_t b = 2, n = 4, s = 7, t = 9, d = 17;
  for (int64_t nkv : {int64_t{1}, int64_t{2}, int64_t{4}}) {
    const auto q = Random(size_t(b * n * s * d), 1), k = Random(size_t(b * nkv * t * d), 2),
               v = Random(size_t(b * nkv * t * d), 3);
    std::vector<double> mask(size_t(b * t), 0.0);
    mask[t + 3] = mask[t + 8] = -10000.0;
    const double scale = 1 / std::sqrt(double(d));
    const auto want = AttentionRef(q, k, v, mask, b, n, nkv, s, t, d, scale);
    std::vector<Attribute> attrs = {AttrInt("num_heads", n), AttrInt("kv_num_heads", nkv),
                                    AttrFloat("scale", float(scale))};
    auto r = RunVt("Attention", {F32({b, n, s, d}, q), F32({b, nkv, t, d}, k), F32({b, nkv, t, d}, v),
                                 F32({b, 1, 1, t}, mask)}, attrs);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const auto got = Values((*r)[0].tensor());
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 2e-5) << nkv << " " << i;
    // The same as [B, S, N*D] operands with the head merge of the output.
    attrs.push_back(AttrInt(kBshOutputAttr, 1));
    auto r3 = RunVt("Attention", {F32({b, s, n * d}, ToBsh(q, b, n, s, d)), F32({b, t, nkv * d}, ToBsh(k, b, nkv, t, d)),
                                  F32({b, t, nkv * d}, ToBsh(v, b, nkv, t, d)), F32({b, 1, 1, t}, mask)}, attrs);
    ASSERT_TRUE(r3.ok()) << r3.status().ToString();
    const auto want3 = ToBsh(want, b, n, s, d);
    const auto got3 = Values((*r3)[0].tensor());
    EXPECT_EQ((*r3)[0].tensor().shape(), (Shape{b, s, n * d}));
    for (size_t i = 0; i < want3.size(); ++i) ASSERT_NEAR(got3[i], want3[i], 2e-5) << nkv << " " << i;
  }
}

TEST(FusedAttention, MaskThatDoesNotBroadcastIsAnError) {
  const std::vector<Attribute> attrs = {AttrInt("num_heads", 2), AttrInt("kv_num_heads", 2), AttrFloat("scale", 0.5f)};
  auto r = RunVt("Attention", {F32({1, 2, 3, 4}, Random(24, 1)), F32({1, 2, 5, 4}, Random(40, 2)),
                               F32({1, 2, 5, 4}, Random(40, 3)), F32({1, 1, 1, 4}, Random(4, 4))}, attrs);
  EXPECT_NE(Message(r).find("Mask"), std::string::npos) << Message(r);
}

TEST(FusedRotary, BroadcastTablesAndStridedInput) {
  const int64_t h = 3, s = 5, d = 18;
  const auto x = Random(size_t(h * s * d), 1), c = Random(size_t(s * d), 2, -1, 1), sn = Random(size_t(s * d), 3, -1, 1);
  auto r = RunVt("RotaryEmbedding", {F32({1, h, s, d}, x), F32({1, 1, s, d}, c), F32({s, d}, sn)}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto got = Values((*r)[0].tensor());
  for (int64_t hi = 0; hi < h; ++hi)
    for (int64_t si = 0; si < s; ++si)
      for (int64_t e = 0; e < d; ++e) {
        const double* row = x.data() + (hi * s + si) * d;
        const double rot = e < d / 2 ? -row[e + d / 2] : row[e - d / 2];
        const double want = row[e] * c[si * d + e] + rot * sn[si * d + e];
        ASSERT_NEAR(got[(hi * s + si) * d + e], want, 1e-6);
      }
  // X as a transposed view [1, S, H, D] -> [1, H, S, D] reads the same values.
  Tensor xt = F32({1, s, h, d}, ToBsh(x, 1, h, s, d));
  auto perm = xt.layout().Transpose({0, 2, 1, 3});
  ASSERT_TRUE(perm.ok());
  auto rv = RunVt("RotaryEmbedding", {xt.WithLayout(*perm), F32({1, 1, s, d}, c), F32({s, d}, sn)}, {});
  ASSERT_TRUE(rv.ok()) << rv.status().ToString();
  EXPECT_EQ(Values((*rv)[0].tensor()), got);
}

TEST(FusedRotary, OddLastDimOrTablesThatWidenAreErrors) {
  EXPECT_NE(Message(RunVt("RotaryEmbedding", {F32({2, 5}, Random(10, 1)), F32({5}, Random(5, 2)), F32({5}, Random(5, 3))}, {}))
                .find("even"),
            std::string::npos);
  EXPECT_NE(Message(RunVt("RotaryEmbedding", {F32({1, 4}, Random(4, 1)), F32({3, 4}, Random(12, 2)), F32({3, 4}, Random(12, 3))}, {}))
                .find("broadcast"),
            std::string::npos);
}

TEST(FusedActivation, SiluSwiGluAndGeluMatchTheirDefinitions) {
  const auto x = Random(37, 1, -9, 9), m = Random(37, 2);
  for (const char* act : {"Silu", "Gelu", "GeluTanh"}) {
    for (bool gated : {false, true}) {
      std::vector<Value> in = {F32({37}, x)};
      if (gated) in.push_back(F32({37}, m));
      auto r = RunVt("Activation", in, {AttrString(kActivationAttr, act)});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      const auto got = Values((*r)[0].tensor());
      for (size_t i = 0; i < x.size(); ++i) {
        const double v = x[i];
        double f = std::string(act) == "Silu"   ? v / (1 + std::exp(-v))
                   : std::string(act) == "Gelu" ? 0.5 * v * std::erfc(-v / std::sqrt(2.0))
                                                : 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
        if (gated) f *= m[i];
        ASSERT_NEAR(got[i], f, 1e-6 + 1e-5 * std::fabs(f)) << act << " " << i;
      }
    }
  }
  EXPECT_NE(Message(RunVt("Activation", {F32({3}, x)}, {AttrString(kActivationAttr, "Relu")})).find("activation"),
            std::string::npos);
  EXPECT_NE(Message(RunVt("Activation", {F32({3}, x), F32({2}, m)}, {AttrString(kActivationAttr, "Silu")})).find("M "),
            std::string::npos);
}

}  // namespace
}  // namespace vt::ops
