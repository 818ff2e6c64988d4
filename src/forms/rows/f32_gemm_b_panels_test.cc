// The f32 GEMM B row's first-load comparison (CompareWithFreshPack) walks the weight in pieces
// of a bounded scratch buffer: weights larger than one piece, in both source orders, with
// ragged last pieces and a padded last panel, compare equal to their pack and unequal wherever
// one byte differs, on one thread and split over three (the form table test covers the small
// samples).
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <random>
#include <vector>

#include "vtensor/forms/weight_form.h"

namespace vt {
namespace {

Tensor RandomWeight(const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::Empty(DType::kFloat32, shape);
  std::mt19937 g(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  float* d = static_cast<float*>(t.raw_mutable_data());
  for (int64_t i = 0; i < t.numel(); ++i) d[i] = normal(g);
  return t;
}

TEST(F32GemmBPanelsCompareTest, LargeWeightsInBothSourceOrders) {
  struct Case {
    Shape shape;
    WeightUse use;
  };
  // [K, N] = [2049, 37]: several kc-row pieces and a ragged last one; [N, K] = [37, 2049]
  // (Gemm transB): one panel per piece, the last panel padded; [4099, 2]: one padded panel.
  const int saved_threads = omp_get_max_threads();
  // [1025, 700] and its transpose: several MiB, so the pieces are split over 3 threads.
  for (const Case& c : {Case{{2049, 37}, WeightUse::kMatMulB}, Case{{37, 2049}, WeightUse::kGemmBTrans},
                        Case{{4099, 2}, WeightUse::kGemmB}, Case{{1025, 700}, WeightUse::kMatMulB},
                        Case{{700, 1025}, WeightUse::kGemmBTrans}})
  for (int threads : {1, 3}) {
    omp_set_num_threads(threads);
    for (const IsaInfo& isa : IsaLevels()) {
      SCOPED_TRACE(ShapeToString(c.shape) + " " + IsaArchitecture(isa.level) + " threads " +
                   std::to_string(threads));
      auto f = ResolveWeightForm(DType::kFloat32, c.shape, {c.use}, isa.level, WeightProfile::kExact);
      ASSERT_TRUE(f.has_value());
      ASSERT_EQ(f->kind, WeightFormKind::kF32GemmBPanels);
      const Tensor w = RandomWeight(c.shape, 7);
      auto p = PackWeightForm(w, *f);
      ASSERT_TRUE(p.ok());
      auto same = CompareWithFreshPack(w, *f, p->data, p->size);
      ASSERT_TRUE(same && same->ok());
      EXPECT_TRUE(**same);
      std::vector<uint8_t> b(p->data, p->data + p->size);
      std::mt19937 g(3);
      for (int i = 0; i < 24; ++i) {
        const size_t at = i == 0 ? b.size() - 1 : g() % b.size();  // the last: panel padding
        b[at] ^= 0x01;
        auto d = CompareWithFreshPack(w, *f, b.data(), b.size());
        ASSERT_TRUE(d && d->ok());
        EXPECT_FALSE(**d) << "byte " << at;
        b[at] ^= 0x01;
      }
    }
  }
  omp_set_num_threads(saved_threads);
}

}  // namespace
}  // namespace vt
