// Test-only helpers of the transformer fusion tests (passes/transformer_fusion.h): a model built
// with OnnxBuilder is imported twice, one copy is rewritten, and both are evaluated on the same
// inputs so a test can check the rewrite (which ops remain) and that results are unchanged.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "passes/test_model_builder.h"
#include "vtensor/exec/evaluate.h"

namespace vt::testing {

// Deterministic f32 values in [lo, hi).
inline Tensor RandomTensor(const Shape& shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return Tensor::FromF32(v, shape);
}

// Number of nodes per op type ("domain:op" outside the default domain).
inline std::map<std::string, int> OpCounts(const Graph& g) {
  std::map<std::string, int> c;
  for (const auto& n : g.nodes) ++c[n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type];
  return c;
}

struct FusionRun {
  size_t rewrites = 0;
  std::map<std::string, int> ops;  // of the rewritten graph
};

// Imports `b`'s model, applies `fuse` (returning its rewrite count) to one copy and checks that
// both copies give the same f32 outputs on `inputs` within `atol` + `rtol` * |reference|.
inline FusionRun FuseAndCompare(const OnnxBuilder& b, const std::function<size_t(Graph&)>& fuse,
                                const std::vector<Value>& inputs, float atol = 1e-5f,
                                float rtol = 1e-5f) {
  FusionRun r;
  auto ref_model = b.Import();
  auto model = b.Import();
  EXPECT_TRUE(ref_model.ok() && model.ok());
  if (!ref_model.ok() || !model.ok()) return r;
  r.rewrites = fuse(*model->graph);
  r.ops = OpCounts(*model->graph);
  auto want = EvaluateModel(*ref_model, inputs);
  auto got = EvaluateModel(*model, inputs);
  EXPECT_TRUE(want.ok()) << want.status().ToString();
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (!want.ok() || !got.ok()) return r;
  EXPECT_EQ(want->size(), got->size());
  for (size_t o = 0; o < std::min(want->size(), got->size()); ++o) {
    const Tensor w = (*want)[o].tensor().Contiguous(), t = (*got)[o].tensor().Contiguous();
    EXPECT_EQ(w.shape(), t.shape()) << "output " << o;
    EXPECT_EQ(w.dtype(), DType::kFloat32) << "output " << o;
    if (w.shape() != t.shape() || w.dtype() != DType::kFloat32) continue;
    int bad = 0;  // reports the first few differences only
    for (int64_t i = 0; i < w.numel() && bad < 5; ++i) {
      const float a = w.data<float>()[i], c = t.data<float>()[i];
      const bool ok = std::fabs(c - a) <= atol + rtol * std::fabs(a);
      EXPECT_TRUE(ok) << "output " << o << " element " << i << ": " << c << " vs " << a;
      bad += !ok;
    }
  }
  return r;
}

}  // namespace vt::testing
