// GatedAdd, GatedRMSNorm and BiasAdd against their definitions: float32 and float16 (GatedAdd's
// product rounded to the type before the add), packed heads for GatedRMSNorm, shape errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrFloat;
using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::Values;

std::vector<double> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3, 3);
  std::vector<double> v(n);
  for (auto& e : v) e = static_cast<float>(u(rng));
  return v;
}

Expected<std::vector<Value>> RunMs(const std::string& op, std::vector<Value> in, std::vector<Attribute> attrs = {}) {
  OpCall c{op, 1, std::move(attrs), std::move(in)};
  c.domain = "com.microsoft";
  return c.Run();
}

std::string Message(const Expected<std::vector<Value>>& r) { return r.ok() ? "ok" : r.status().message(); }

TEST(GatedAdd, Float32AndFloat16) {
  const auto x = Random(2 * 3 * 5, 1), y = Random(30, 2), g = Random(6, 3);
  auto r = RunMs("GatedAdd", {F32({2, 3, 5}, x), F32({2, 3, 5}, y), F32({2, 3, 1}, g)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto got = Values((*r)[0].tensor());
  for (size_t i = 0; i < 30; ++i) ASSERT_NEAR(got[i], x[i] + y[i] * g[i / 5], 1e-5);
  auto h = RunMs("GatedAdd", {MakeTensor(DType::kFloat16, {2, 3, 5}, x), MakeTensor(DType::kFloat16, {2, 3, 5}, y),
                            MakeTensor(DType::kFloat16, {2, 3, 1}, g)});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  const auto hv = Values((*h)[0].tensor());
  auto r16 = [](double v) { return double(HalfToFloat(FloatToHalf(float(v)))); };
  for (size_t i = 0; i < 30; ++i)
    ASSERT_EQ(hv[i], r16(r16(x[i]) + r16(r16(y[i]) * r16(g[i / 5])))) << i;  // product rounded first
  EXPECT_NE(Message(RunMs("GatedAdd", {F32({2, 3, 5}, x), F32({2, 3, 5}, y), F32({3, 1}, g)})).find("input 'gate' (2)"),
            std::string::npos);
  EXPECT_NE(Message(RunMs("GatedAdd", {F32({2, 3, 5}, x), F32({6, 5}, y), F32({2, 3, 1}, g)})).find("input 'Y' (1)"),
            std::string::npos);
}

TEST(GatedRMSNorm, PackedHeads) {
  const int64_t heads = 3, c = 8;
  const auto x = Random(size_t(2 * heads * c), 4), s = Random(size_t(c), 5), g = Random(size_t(2 * heads * c), 6);
  for (float eps : {1e-5f, 0.5f}) {
    std::vector<Attribute> attrs;
    if (eps != 1e-5f) attrs.push_back(AttrFloat("epsilon", eps));
    auto r = RunMs("GatedRMSNorm", {F32({2, heads * c}, x), F32({c}, s), F32({2, heads * c}, g)}, attrs);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const auto got = Values((*r)[0].tensor());
    for (int64_t grp = 0; grp < 2 * heads; ++grp) {
      double ms = 0;
      for (int64_t i = 0; i < c; ++i) ms += x[size_t(grp * c + i)] * x[size_t(grp * c + i)];
      const double inv = 1 / std::sqrt(ms / double(c) + eps);
      for (int64_t i = 0; i < c; ++i) {
        const size_t k = size_t(grp * c + i);
        const double want = x[k] * inv * s[size_t(i)] * g[k] / (1 + std::exp(-g[k]));
        ASSERT_NEAR(got[k], want, 1e-5 * (1 + std::fabs(want))) << "eps " << eps << " at " << k;
      }
    }
  }
  EXPECT_NE(Message(RunMs("GatedRMSNorm", {F32({2, 24}, x), F32({5}, Random(5, 1)), F32({2, 24}, g)})).find("input 'scale' (1)"),
            std::string::npos);
  EXPECT_NE(Message(RunMs("GatedRMSNorm", {F32({2, 24}, x), F32({8}, s), F32({48}, g)})).find("input 'gate' (2)"),
            std::string::npos);
}

TEST(BiasAdd, Definition) {
  const auto x = Random(2 * 3 * 4, 7), b = Random(4, 8), s = Random(24, 9);
  auto r = RunMs("BiasAdd", {F32({2, 3, 4}, x), F32({4}, b), F32({2, 3, 4}, s)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto got = Values((*r)[0].tensor());
  for (size_t i = 0; i < 24; ++i) ASSERT_NEAR(got[i], x[i] + b[i % 4] + s[i], 1e-5);
  EXPECT_NE(Message(RunMs("BiasAdd", {F32({2, 3, 4}, x), F32({4}, b), F32({1, 3, 4}, s)})).find("input 'skip' (2)"),
            std::string::npos);
}

}  // namespace
}  // namespace vt::ops
