#include "vtensor/runtime/weight_form.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace vt {
namespace {

Tensor RandomWeight(const Shape& s, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, 0.5f);
  std::vector<float> v(static_cast<size_t>(NumElements(s)));
  for (auto& x : v) x = d(g);
  return Tensor::FromF32(v, s);
}

TEST(WeightFormTest, ExactProfileOffersOnlyLosslessForms) {
  for (WeightUse u : {WeightUse::kMatMulB, WeightUse::kGemmB, WeightUse::kGemmBTrans}) {
    auto f = ResolveWeightForm(DType::kFloat32, {40, 24}, {u}, HostIsa(), WeightProfile::kExact);
    ASSERT_TRUE(f.has_value());
    EXPECT_TRUE(f->lossless);
    EXPECT_EQ(f->kind, WeightFormKind::kF32GemmBPanels);
  }
}

TEST(WeightFormTest, CompactGemmWeightIsInt8PerOutputChannelWithinHalfAStep) {
  for (bool trans : {false, true}) {
    SCOPED_TRACE(trans ? "transB" : "B");
    const int64_t K = 37, N = 45;
    const Shape shape = trans ? Shape{N, K} : Shape{K, N};
    const WeightUseInfo use{trans ? WeightUse::kGemmBTrans : WeightUse::kGemmB};
    auto f = ResolveWeightForm(DType::kFloat32, shape, use, HostIsa(), WeightProfile::kCompact);
    ASSERT_TRUE(f.has_value());
    ASSERT_EQ(f->kind, WeightFormKind::kS8GemmBPerChannel);
    EXPECT_FALSE(f->lossless);
    const Tensor w = RandomWeight(shape, 7);
    auto p = PackWeightForm(w, *f);
    ASSERT_TRUE(p.ok()) << p.status().message();
    ASSERT_EQ(static_cast<int64_t>(p->size), f->bytes());
    const auto* scales = reinterpret_cast<const float*>(p->data + f->extra_offset);
    for (int64_t n = 0; n < N; ++n) {
      float amax = 0;
      for (int64_t k = 0; k < K; ++k) {
        const int64_t idx[2] = {trans ? n : k, trans ? k : n};
        amax = std::max(amax, std::fabs(w.data<float>()[idx[0] * shape[1] + idx[1]]));
      }
      EXPECT_FLOAT_EQ(scales[n], amax / 127.0f);
      for (int64_t k = 0; k < K; ++k) {
        const int64_t idx[2] = {trans ? n : k, trans ? k : n};
        // The layout says where the int8 value of logical (idx) is.
        const ByteAddress a = f->layout.Locate(idx);
        const float q = static_cast<float>(static_cast<int8_t>(p->data[a.byte]));
        const float x = w.data<float>()[idx[0] * shape[1] + idx[1]];
        EXPECT_LE(std::fabs(q * scales[n] - x), scales[n] * 0.5f + 1e-7f) << k << "," << n;
      }
    }
    // Deterministic: packing twice gives the same bytes.
    auto again = PackWeightForm(w, *f);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(std::memcmp(again->data, p->data, p->size), 0);
    // The struct type carries both fields and the full byte size.
    const auto t = StructTypeForForm(*f);
    ASSERT_EQ(t.fields_size(), 2);
    EXPECT_EQ(t.fields(1).name(), "scales");
    EXPECT_EQ(t.byte_size(), f->bytes());
  }
}

TEST(WeightFormTest, CompactMatMulWeightIsInt4AndConvStaysF32) {
  auto m = ResolveWeightForm(DType::kFloat32, {64, 24}, {WeightUse::kMatMulB}, HostIsa(),
                             WeightProfile::kCompact);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->kind, WeightFormKind::kQ4_0GemmB);
  auto c = ResolveWeightForm(DType::kFloat32, {16, 8, 3, 3}, {WeightUse::kConvFilter, 1, false},
                             HostIsa(), WeightProfile::kCompact);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->kind, WeightFormKind::kF32ConvAPanels);
}

}  // namespace
}  // namespace vt
