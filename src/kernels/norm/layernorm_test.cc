// Every row of the row normalization table against the reference twin and the definition in
// double, on odd row lengths with every combination of optional addends, scale, shift and sum
// output, layer and RMS; in place (y == x); no reads or writes past the row.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/norm/layernorm_table.h"

namespace vt::kernels {
namespace {

struct Case {
  size_t n;
  bool a, b, gamma, beta, sum, rms;
  float epsilon;
};

std::vector<Case> Cases() {
  std::vector<Case> all;
  const size_t lengths[] = {1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 64, 257, 768, 1000};
  int k = 0;
  for (size_t n : lengths)
    for (int mask = 0; mask < 64; mask += 5, ++k)
      all.push_back({n, (mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0, (mask & 8) != 0,
                     (mask & 16) != 0, (mask & 32) != 0, k % 3 == 0 ? 1e-12f : 1e-5f});
  return all;
}

std::vector<float> Random(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& e : v) e = u(rng);
  return v;
}

struct Data {
  std::vector<float> x, a, b, gamma, beta;
};

Data MakeData(const Case& c, uint32_t seed) {
  // A large common offset makes the two-pass variance matter.
  return {Random(c.n, seed, 3.0f, 5.0f), Random(c.n, seed + 1, -1, 1), Random(c.n, seed + 2, -1, 1),
          Random(c.n, seed + 3, 0.5f, 1.5f), Random(c.n, seed + 4, -1, 1)};
}

LayerNormRow MakeRow(const Case& c, const Data& d, float* y, float* sum) {
  LayerNormRow r;
  r.n = c.n;
  r.x = d.x.data();
  r.a = c.a ? d.a.data() : nullptr;
  r.b = c.b ? d.b.data() : nullptr;
  r.gamma = c.gamma ? d.gamma.data() : nullptr;
  r.beta = c.beta ? d.beta.data() : nullptr;
  r.y = y;
  r.sum = c.sum ? sum : nullptr;
  r.epsilon = c.epsilon;
  r.rms = c.rms;
  return r;
}

// The definition in double: y, s, mean, inv.
struct Exact {
  std::vector<double> y, s;
  double mean = 0, inv = 0, scale = 0;  // scale: sqrt of the mean square of s - mean
};

Exact Define(const Case& c, const Data& d) {
  Exact e;
  e.s.resize(c.n);
  double total = 0;
  for (size_t i = 0; i < c.n; ++i) {
    e.s[i] = double(d.x[i]) + (c.a ? d.a[i] : 0.0) + (c.b ? d.b[i] : 0.0);
    total += e.s[i];
  }
  e.mean = c.rms ? 0.0 : total / double(c.n);
  double var = 0;
  for (double s : e.s) var += (s - e.mean) * (s - e.mean);
  var /= double(c.n);
  e.scale = std::sqrt(var);
  e.inv = 1.0 / std::sqrt(var + double(c.epsilon));
  for (size_t i = 0; i < c.n; ++i)
    e.y.push_back((e.s[i] - e.mean) * e.inv * (c.gamma ? d.gamma[i] : 1.0) + (c.beta ? d.beta[i] : 0.0));
  return e;
}

std::string Describe(const Case& c) {
  return "n" + std::to_string(c.n) + (c.a ? " a" : "") + (c.b ? " b" : "") +
         (c.gamma ? " gamma" : "") + (c.beta ? " beta" : "") + (c.sum ? " sum" : "") +
         (c.rms ? " rms" : " layer") + " eps" + std::to_string(c.epsilon);
}

// |got - want| within `ulps` f32 roundings of the terms the element is made of.
void ExpectRow(const LayerNormKernel& k, const Case& c, const Data& d, const Exact& e,
               const std::vector<float>& y, const std::vector<float>& sum, float mean, float inv,
               double ulps) {
  const double u = ulps * 0x1p-24;
  const std::string what = std::string(k.name) + " " + Describe(c);
  // Relative to the spread of s: an error of u * |s| in s moves y by u * |s| * inv * |gamma|.
  double smax = 0;
  for (double s : e.s) smax = std::max(smax, std::fabs(s));
  for (size_t i = 0; i < c.n; ++i) {
    const double g = c.gamma ? std::fabs(d.gamma[i]) : 1.0;
    const double tol = u * (smax * e.inv * g + std::fabs(e.y[i]) + 1e-30);
    ASSERT_NEAR(y[i], e.y[i], tol) << what << " y at " << i;
    if (c.sum) {
      ASSERT_NEAR(sum[i], e.s[i], 4 * 0x1p-24 * (std::fabs(e.s[i]) + smax * 1e-7)) << what;
    }
  }
  EXPECT_NEAR(mean, e.mean, u * smax) << what << " mean";
  EXPECT_NEAR(inv, e.inv, u * e.inv * (1 + smax * e.inv)) << what << " inv_std";
}

TEST(LayerNormKernels, EveryRowAgainstTwinAndDefinition) {
  uint32_t seed = 1;
  for (const Case& c : Cases()) {
    const Data d = MakeData(c, seed += 7);
    const Exact e = Define(c, d);
    std::vector<float> twin_y(c.n), twin_s(c.n);
    float twin_mean = 0, twin_inv = 0;
    LayerNormReference(MakeRow(c, d, twin_y.data(), twin_s.data()), &twin_mean, &twin_inv);
    ExpectRow(LayerNormKernels().back(), c, d, e, twin_y, twin_s, twin_mean, twin_inv,
              8.0 + 2.0 * std::sqrt(double(c.n)));
    for (const LayerNormKernel& k : LayerNormKernels()) {
      if (!k.supported()) continue;
      std::vector<float> y(c.n), s(c.n);
      float mean = 0, inv = 0;
      k.ukernel(MakeRow(c, d, y.data(), s.data()), &mean, &inv);
      ExpectRow(k, c, d, e, y, s, mean, inv, 8.0 + 2.0 * std::sqrt(double(c.n)));
      for (size_t i = 0; i < c.n; ++i)
        ASSERT_NEAR(y[i], twin_y[i], 1e-5 * (1 + std::fabs(twin_y[i]))) << k.name << " vs twin";
    }
  }
}

TEST(LayerNormKernels, InPlaceAndDoubleTwin) {
  const Case c{33, true, true, true, true, true, false, 1e-5f};
  const Data d = MakeData(c, 99);
  const Exact e = Define(c, d);
  for (const LayerNormKernel& k : LayerNormKernels()) {
    if (!k.supported()) continue;
    std::vector<float> xy = d.x, s(c.n);
    LayerNormRow r = MakeRow(c, d, xy.data(), s.data());
    r.x = xy.data();
    float mean, inv;
    k.ukernel(r, &mean, &inv);
    for (size_t i = 0; i < c.n; ++i) ASSERT_NEAR(xy[i], e.y[i], 1e-5) << k.name << " in place";
  }
  std::vector<double> x(d.x.begin(), d.x.end()), a(d.a.begin(), d.a.end()), y(c.n);
  LayerNormRowT<double> r;
  r.n = c.n, r.x = x.data(), r.a = a.data(), r.y = y.data(), r.epsilon = 0.5;
  double mean, inv;
  LayerNormReferenceT(r, &mean, &inv);
  double m = 0, v = 0;
  for (size_t i = 0; i < c.n; ++i) m += x[i] + a[i];
  m /= double(c.n);
  for (size_t i = 0; i < c.n; ++i) v += (x[i] + a[i] - m) * (x[i] + a[i] - m);
  EXPECT_NEAR(inv, 1 / std::sqrt(v / double(c.n) + 0.5), 1e-14);
  EXPECT_NEAR(y[5], (x[5] + a[5] - m) * inv, 1e-13);
}

// Rows placed so that their last element ends a page followed by an inaccessible page: a
// kernel that reads or writes past the row faults.
TEST(LayerNormKernels, NoAccessPastTheRow) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (const LayerNormKernel& k : LayerNormKernels()) {
    if (!k.supported()) continue;
    for (size_t n : {1, 5, 17, 40}) {
      const size_t bytes = 8 * page;
      void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      ASSERT_NE(base, MAP_FAILED);
      char* p = static_cast<char*>(base);
      for (int i = 1; i < 8; i += 2) mprotect(p + i * page, page, PROT_NONE);
      auto end_of = [&](int pg) { return reinterpret_cast<float*>(p + pg * page) - n; };
      float *x = end_of(1), *a = end_of(3), *y = end_of(5), *sum = end_of(7);
      for (size_t i = 0; i < n; ++i) x[i] = float(i), a[i] = 1.0f;
      LayerNormRow r;
      r.n = n, r.x = x, r.a = a, r.y = y, r.sum = sum, r.epsilon = 1e-5f;
      float mean, inv;
      k.ukernel(r, &mean, &inv);
      EXPECT_NEAR(mean, (n - 1) / 2.0 + 1.0, 1e-5) << k.name;
      munmap(base, bytes);
    }
  }
}

}  // namespace
}  // namespace vt::kernels
