// Test-only helpers shared by the normalization kernel tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ops/common/op_test_util.h"

namespace vt::ops::normtest {

// The op-test helpers every normalization test uses; a test pulls them (and the helpers
// below) in with `using namespace normtest;`.
using testing::AttrFloat;
using testing::AttrInt;
using testing::AttrInts;
using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::RunOne;
using testing::Values;

inline std::vector<double> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-2, 3);
  std::vector<double> v(n);
  for (auto& e : v) e = static_cast<float>(u(rng));
  return v;
}

inline void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " at " << i;
}

// Mean / population variance of the elements idx(0..count).
template <typename F>
inline void Moments(int64_t count, F at, double* mean, double* var) {
  double s = 0, s2 = 0;
  for (int64_t k = 0; k < count; ++k) s += at(k);
  *mean = s / static_cast<double>(count);
  for (int64_t k = 0; k < count; ++k) s2 += (at(k) - *mean) * (at(k) - *mean);
  *var = s2 / static_cast<double>(count);
}

}  // namespace vt::ops::normtest
