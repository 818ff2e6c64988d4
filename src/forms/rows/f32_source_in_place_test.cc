// The source-in-place row: which GEMM weights it takes (few known rows, 1 MiB or more), why it
// turns the others down, that its "pack" lends the source bytes, and that the weight provider
// neither caches nor reports such a weight.
#include <gtest/gtest.h>

#include <cstring>

#include "vtensor/forms/form_table.h"
#include "vtensor/forms/weight_provider.h"

namespace vt {
namespace {

Tensor Weight(const Shape& s) {
  std::vector<float> v(static_cast<size_t>(NumElements(s)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 97) * 0.25f - 3.0f;
  return Tensor::FromF32(v, s);
}

// The in-place row's candidate among all of a weight's.
const WeightFormCandidate* InPlaceCandidate(const std::vector<WeightFormCandidate>& cs) {
  for (const auto& c : cs)
    if (c.description.find("read in place") != std::string::npos) return &c;
  return nullptr;
}

TEST(F32SourceInPlaceTest, FewKnownRowsOfALargeWeightReadTheSource) {
  for (WeightUse u : {WeightUse::kMatMulB, WeightUse::kGemmB, WeightUse::kGemmBTrans})
    for (int64_t rows : {1, 2, 4}) {
      WeightUseInfo use{u};
      use.rows = rows;
      auto f = ResolveWeightForm(DType::kFloat32, {1024, 300}, use, HostIsa(), WeightProfile::kExact);
      ASSERT_TRUE(f.has_value());
      EXPECT_EQ(f->kind, WeightFormKind::kF32SourceInPlace);
      EXPECT_EQ(f->type_name, "vt.f32_source_in_place");
      EXPECT_EQ(f->layout, Layout::Contiguous({1024, 300}, Encoding::kF32));
      EXPECT_EQ(f->kernel.rfind(u == WeightUse::kGemmBTrans ? "f32_gemv_nk_" : "f32_gemv_kn_", 0), 0u)
          << f->kernel;
    }
}

TEST(F32SourceInPlaceTest, OtherWeightsKeepThePackedPanelsWithAReason) {
  struct Case {
    Shape shape;
    int64_t rows;
    const char* reason;
  };
  for (const Case& c : {Case{{1024, 300}, 0, "not known from static shapes"},
                        Case{{1024, 300}, 5, "M = 5 rows"},
                        Case{{256, 256}, 1, "stays in cache"}}) {
    WeightUseInfo use{WeightUse::kMatMulB};
    use.rows = c.rows;
    const auto cs = WeightFormCandidates(DType::kFloat32, c.shape, use, HostIsa(), WeightProfile::kExact);
    const WeightFormCandidate* in_place = InPlaceCandidate(cs);
    ASSERT_NE(in_place, nullptr);
    EXPECT_NE(in_place->rejected.find(c.reason), std::string::npos) << in_place->rejected;
    auto f = ResolveWeightForm(DType::kFloat32, c.shape, use, HostIsa(), WeightProfile::kExact);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->kind, WeightFormKind::kF32GemmBPanels);
  }
}

TEST(F32SourceInPlaceTest, PackLendsTheSourceBytes) {
  WeightUseInfo use{WeightUse::kMatMulB};
  use.rows = 1;
  const Tensor w = Weight({1024, 300});
  auto f = ResolveWeightForm(DType::kFloat32, w.shape(), use, HostIsa(), WeightProfile::kExact);
  ASSERT_TRUE(f.has_value());
  auto p = PackWeightForm(w, *f);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->data, static_cast<const uint8_t*>(w.raw_data()));  // no copy
  EXPECT_EQ(static_cast<int64_t>(p->size), w.nbytes());
  // A strided view is lent as a contiguous copy of its values.
  const Tensor big = Weight({300, 1024});
  auto tl = big.layout().Transpose({1, 0});
  ASSERT_TRUE(tl.ok());
  const Tensor tt = big.WithLayout(*tl);
  const Tensor* t = &tt;
  auto q = PackWeightForm(*t, *f);
  ASSERT_TRUE(q.ok()) << q.status().message();
  const Tensor want = t->Contiguous();
  ASSERT_EQ(q->size, static_cast<size_t>(want.nbytes()));
  EXPECT_EQ(std::memcmp(q->data, want.raw_data(), q->size), 0);
}

TEST(F32SourceInPlaceTest, ProviderNeitherCachesNorReportsIt) {
  WeightProvider provider(HostIsa(), WeightProfile::kExact, nullptr);
  int observed = 0;
  provider.set_observer([&](const std::string&, const Tensor&, const PreparedWeight&) { ++observed; });
  Node node;
  node.name = "mm";
  node.op_type = "MatMul";
  const Tensor w = Weight({1024, 300});
  WeightUseInfo use{WeightUse::kMatMulB};
  use.rows = 2;
  auto p = provider.Prepare(node, "w", w, use);
  ASSERT_TRUE(p.ok() && p->has_value());
  EXPECT_EQ((*p)->form.kind, WeightFormKind::kF32SourceInPlace);
  EXPECT_FALSE((*p)->hit);
  EXPECT_EQ(observed, 0);
  ASSERT_EQ(provider.decisions().size(), 1u);
  EXPECT_NE(provider.decisions()[0].outcome.find("read in place"), std::string::npos);
  // The same weight read by a GEMM of unknown rows is packed and reported.
  use.rows = 0;
  auto q = provider.Prepare(node, "w", w, use);
  ASSERT_TRUE(q.ok() && q->has_value());
  EXPECT_EQ((*q)->form.kind, WeightFormKind::kF32GemmBPanels);
  EXPECT_EQ(observed, 1);
}

}  // namespace
}  // namespace vt
