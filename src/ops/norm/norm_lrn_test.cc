// LRN against direct double formulas.
#include <gtest/gtest.h>

#include "ops/norm/norm_test_util.h"

namespace vt::ops {
namespace {

using namespace normtest;

TEST(Lrn, MatchesFormula) {
  const int64_t n = 1, c = 5, s = 3;
  const auto x = Random(15, 6);
  Tensor y = RunOne(OpCall{"LRN", 13, {AttrInt("size", 3), AttrFloat("alpha", 0.01f),
                                       AttrFloat("beta", 0.6f), AttrFloat("bias", 2.0f)},
                           {F32({n, c, s}, x)}});
  std::vector<double> want(x.size());
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t k = 0; k < s; ++k) {
      double sq = 0;
      for (int64_t j = std::max<int64_t>(0, ch - 1); j <= std::min<int64_t>(c - 1, ch + 1); ++j)
        sq += x[j * s + k] * x[j * s + k];
      want[ch * s + k] = x[ch * s + k] / std::pow(2.0 + 0.01 / 3 * sq, 0.6);
    }
  ExpectClose(Values(y), want, 1e-5, "lrn");
}

}  // namespace
}  // namespace vt::ops
