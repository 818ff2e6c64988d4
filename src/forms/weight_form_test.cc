#include "vtensor/forms/weight_form.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "vtensor/layout/layout_pack.h"
#include "vtensor/forms/weight_provider.h"

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
    ASSERT_NE(f->field("scales"), nullptr);
    const auto* scales = reinterpret_cast<const float*>(p->data + f->field("scales")->offset);
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

// A consumer without a lossy path (Dense, FusedMatMul) gets the f32 panels under compact too;
// the lossy rows are listed as turned down, with the reason.
TEST(WeightFormTest, LosslessOnlyUseTurnsDownLossyFormsUnderCompact) {
  for (WeightUse u : {WeightUse::kMatMulB, WeightUse::kGemmB, WeightUse::kGemmBTrans}) {
    WeightUseInfo use{u};
    use.lossless_only = true;
    auto f = ResolveWeightForm(DType::kFloat32, {64, 24}, use, HostIsa(), WeightProfile::kCompact);
    ASSERT_TRUE(f.has_value());
    EXPECT_TRUE(f->lossless);
    EXPECT_EQ(f->kind, WeightFormKind::kF32GemmBPanels);
    int turned_down = 0;
    for (const auto& c :
         WeightFormCandidates(DType::kFloat32, {64, 24}, use, HostIsa(), WeightProfile::kCompact))
      turned_down += c.rejected.find("f32 weights only") != std::string::npos ? 1 : 0;
    EXPECT_GE(turned_down, 1) << GetWeightUseTraits(u).name;
  }
}

// MatMulNBits planes: a lossless panel form in both profiles and on every ISA level, for each
// shape the operator allows, whose bytes are exactly the Layout the entry records (the packer
// and the layout description agree), and rejected for float16 scales.
TEST(WeightFormTest, MatMulNBitsPlanesArePanelLayoutsOfTheirSource) {
  const int64_t N = 37, kb = 5;
  struct Plane {
    WeightUse use;
    DType dtype;
    Shape shape;
    int64_t cols, unit;
  };
  const Plane planes[] = {
      {WeightUse::kNBitsCodes, DType::kUInt8, {N, kb, 16}, kb, 16},
      {WeightUse::kNBitsScales, DType::kFloat32, {N, kb}, kb, 1},
      {WeightUse::kNBitsScales, DType::kFloat32, {N * kb}, kb, 1},
      {WeightUse::kNBitsZeroPoints, DType::kUInt8, {N * 3}, 3, 1},
      {WeightUse::kNBitsZeroPoints, DType::kUInt8, {N, 3}, 3, 1},
      {WeightUse::kNBitsZeroPoints, DType::kFloat32, {N, kb}, kb, 1},
  };
  std::mt19937 g(5);
  for (const Plane& p : planes) {
    SCOPED_TRACE(ShapeToString(p.shape));
    WeightUseInfo use{p.use};
    use.nbits_rows = N;
    use.nbits_cols = p.cols;
    use.nbits_unit = p.unit;
    Tensor t = Tensor::Empty(p.dtype, p.shape);
    std::vector<float> logical(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) {
      const int v = static_cast<int>(g() % 251);
      logical[static_cast<size_t>(i)] = static_cast<float>(v);
      if (p.dtype == DType::kUInt8) static_cast<uint8_t*>(t.raw_mutable_data())[i] = static_cast<uint8_t>(v);
      else static_cast<float*>(t.raw_mutable_data())[i] = static_cast<float>(v);
    }
    for (IsaLevel isa : {IsaLevel::kBaseline, IsaLevel::kAvx2, IsaLevel::kAvx512})
      for (WeightProfile prof : {WeightProfile::kExact, WeightProfile::kCompact}) {
        auto f = ResolveWeightForm(p.dtype, p.shape, use, isa, prof);
        ASSERT_TRUE(f.has_value());
        EXPECT_EQ(f->kind, WeightFormKind::kNBitsPanels);
        EXPECT_TRUE(f->lossless);
        EXPECT_EQ(f->layout.shape(), p.shape);
        EXPECT_EQ(KnownWeightFormVersion(f->type_name), f->format_version);
        auto packed = PackWeightForm(t, *f);
        ASSERT_TRUE(packed.ok()) << packed.status().message();
        auto via_layout = PackFloats(logical.data(), f->layout);
        ASSERT_TRUE(via_layout.ok()) << via_layout.status().message();
        ASSERT_EQ(via_layout->size(), packed->size);
        EXPECT_EQ(0, std::memcmp(via_layout->data(), packed->data, packed->size));
      }
  }
  WeightUseInfo use{WeightUse::kNBitsScales};
  use.nbits_rows = N;
  use.nbits_cols = kb;
  const auto c = WeightFormCandidates(DType::kFloat16, {N, kb}, use, IsaLevel::kAvx512,
                                      WeightProfile::kExact);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_FALSE(c[0].rejected.empty());
  // A plane whose shape does not match the geometry is rejected, not mis-packed.
  use.nbits_cols = kb + 1;
  EXPECT_FALSE(ResolveWeightForm(DType::kFloat32, {N, kb}, use, IsaLevel::kAvx512,
                                 WeightProfile::kExact).has_value());
}

}  // namespace
}  // namespace vt

namespace vt {
namespace {

// The row a MatMul / Gemm runs against B panels packed for an ISA: a split-B row reading two
// NR = 32 panels per tile for a large GEMM on AVX-512, the M row otherwise and on other ISAs.
TEST(WeightFormTest, GemmRowForPanelsPerIsa) {
  EXPECT_STREQ(F32GemmRowNameForPanels(IsaLevel::kAvx512, 1024, 1024), "f32_gemm_6x64_avx512");
  EXPECT_STREQ(F32GemmRowNameForPanels(IsaLevel::kAvx512, 32, 1024),
               F32GemmRowNameForM(IsaLevel::kAvx512, 32));
  EXPECT_STREQ(F32GemmRowNameForPanels(IsaLevel::kAvx512, 1, 4096), "f32_gemm_1x32_avx512");
  EXPECT_STREQ(F32GemmRowNameForPanels(IsaLevel::kAvx512, 1024, 64),
               F32GemmRowNameForM(IsaLevel::kAvx512, 1024));
  EXPECT_STREQ(F32GemmRowNameForPanels(IsaLevel::kAvx2, 1024, 1024), "f32_gemm_6x16_avx2");
  EXPECT_STREQ(F32GemmRowNameForPanels(IsaLevel::kBaseline, 1024, 1024), "f32_gemm_4x16_scalar");
}

}  // namespace
}  // namespace vt
