// Every row of the GELU-family table, the reference twin included, against the definition in
// double: the three kinds over a dense grid through both tails, odd row lengths with bias and
// gate, in place, special values, and no reads or writes past the row.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/activation/gelu_table.h"

namespace vt::kernels {
namespace {

const char* KindName(GeluKind k) {
  return k == GeluKind::kErf ? "erf" : k == GeluKind::kTanh ? "tanh" : "sigmoid";
}

// f(v) in double from the f32 value v (the bias add already rounded as the kernel rounds it),
// and how sensitive f is to one rounding of its internal argument: the tolerance grows with
// z^2 (erfc) or |w| (exp) in the negative tail, where the function is e^(-z^2) or e^w.
struct Def {
  double y, sensitivity;
};

Def Define(GeluKind kind, double alpha, double v) {
  auto sigmoid = [](double w) { return w >= 0 ? 1 / (1 + std::exp(-w)) : std::exp(w) / (1 + std::exp(w)); };
  switch (kind) {
    case GeluKind::kErf: {
      const double z = v / std::sqrt(2.0);
      return {v * 0.5 * std::erfc(-z), 4 * z * z};
    }
    case GeluKind::kTanh: {
      const double w = 2 * std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v);
      return {v * sigmoid(w), 4 * std::fabs(w)};
    }
    case GeluKind::kSigmoid: {
      const double w = alpha * v;
      return {v * sigmoid(w), 4 * std::fabs(w)};
    }
  }
  return {0, 0};
}

void ExpectRow(const GeluKernel& k, const GeluRow& r, const std::vector<float>& y,
               const std::string& what) {
  for (size_t i = 0; i < r.n; ++i) {
    const float v = r.bias != nullptr ? r.x[i] + r.bias[i] : r.x[i];
    const Def d = Define(r.kind, r.alpha, v);
    const double want = d.y * (r.mul != nullptr ? r.mul[i] : 1.0);
    const double tol = 0x1p-24 * (16 + d.sensitivity) * std::fabs(want) + 1e-37;
    ASSERT_NEAR(y[i], want, tol) << k.name << " " << KindName(r.kind) << " " << what << " v=" << v
                                 << " at " << i;
  }
}

TEST(GeluKernels, DenseGridThroughBothTails) {
  std::vector<float> x;
  for (float v = -40.0f; v <= 40.0f; v += 0.0371f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-8f, -1e-8f, 13.2f, -13.2f}) x.push_back(v);
  for (const GeluKernel& k : GeluKernels()) {
    if (!k.supported()) continue;
    for (GeluKind kind : {GeluKind::kErf, GeluKind::kTanh, GeluKind::kSigmoid})
      for (float alpha : {1.702f, 1.0f, -0.5f}) {
        if (kind != GeluKind::kSigmoid && alpha != 1.702f) continue;
        std::vector<float> y(x.size());
        GeluRow r;
        r.n = x.size(), r.x = x.data(), r.y = y.data(), r.kind = kind, r.alpha = alpha;
        k.ukernel(r);
        ExpectRow(k, r, y, "grid alpha " + std::to_string(alpha));
      }
  }
}

TEST(GeluKernels, OddLengthsWithBiasAndGate) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-6, 6);
  for (size_t n : {0, 1, 7, 8, 15, 16, 17, 33, 257, 1000}) {
    std::vector<float> x(n), b(n), m(n);
    for (size_t i = 0; i < n; ++i) x[i] = u(rng), b[i] = u(rng) / 4, m[i] = u(rng);
    for (const GeluKernel& k : GeluKernels()) {
      if (!k.supported()) continue;
      for (int variant = 0; variant < 4; ++variant)
        for (GeluKind kind : {GeluKind::kErf, GeluKind::kTanh, GeluKind::kSigmoid}) {
          std::vector<float> y(n, 1234.0f);
          GeluRow r;
          r.n = n, r.x = x.data(), r.y = y.data(), r.kind = kind, r.alpha = 1.702f;
          r.bias = variant & 1 ? b.data() : nullptr;
          r.mul = variant & 2 ? m.data() : nullptr;
          k.ukernel(r);
          ExpectRow(k, r, y, "n" + std::to_string(n) + " variant " + std::to_string(variant));
        }
      // In place: y == x, and y == mul.
      std::vector<float> xy = x, my = m;
      GeluRow r;
      r.n = n, r.x = xy.data(), r.y = xy.data(), r.bias = b.data();
      k.ukernel(r);
      GeluRow r2;
      r2.n = n, r2.x = x.data(), r2.mul = my.data(), r2.y = my.data(), r2.kind = GeluKind::kTanh;
      k.ukernel(r2);
      for (size_t i = 0; i < n; ++i) {
        const float v = x[i] + b[i];
        ASSERT_NEAR(xy[i], Define(GeluKind::kErf, 1, v).y, 1e-5 * (1 + std::fabs(v))) << k.name;
        ASSERT_NEAR(my[i], Define(GeluKind::kTanh, 1, x[i]).y * m[i], 1e-5 * (1 + std::fabs(my[i])))
            << k.name;
      }
    }
  }
}

TEST(GeluKernels, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x{inf, nan, -nan, 1e30f, -1e30f};
  for (const GeluKernel& k : GeluKernels()) {
    if (!k.supported()) continue;
    for (GeluKind kind : {GeluKind::kErf, GeluKind::kTanh, GeluKind::kSigmoid}) {
      std::vector<float> y(x.size());
      GeluRow r;
      r.n = x.size(), r.x = x.data(), r.y = y.data(), r.kind = kind, r.alpha = 1.702f;
      k.ukernel(r);
      EXPECT_EQ(y[0], inf) << k.name << " " << KindName(kind);
      EXPECT_TRUE(std::isnan(y[1]) && std::isnan(y[2])) << k.name << " " << KindName(kind);
      EXPECT_EQ(y[3], 1e30f) << k.name << " " << KindName(kind);
      EXPECT_EQ(y[4], 0.0f) << k.name << " " << KindName(kind);
    }
  }
}

TEST(GeluKernels, NoAccessPastTheRow) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (const GeluKernel& k : GeluKernels()) {
    if (!k.supported()) continue;
    for (size_t n : {1, 5, 17, 40}) {
      const size_t bytes = 8 * page;
      void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      ASSERT_NE(base, MAP_FAILED);
      char* p = static_cast<char*>(base);
      for (int i = 1; i < 8; i += 2) mprotect(p + i * page, page, PROT_NONE);
      auto end_of = [&](int pg) { return reinterpret_cast<float*>(p + pg * page) - n; };
      float *x = end_of(1), *b = end_of(3), *m = end_of(5), *y = end_of(7);
      for (size_t i = 0; i < n; ++i) x[i] = float(i) - 2, b[i] = 0.5f, m[i] = 2.0f;
      GeluRow r;
      r.n = n, r.x = x, r.bias = b, r.mul = m, r.y = y;
      k.ukernel(r);
      EXPECT_NEAR(y[n - 1], 2 * Define(GeluKind::kErf, 1, float(n) - 2.5f).y, 1e-4) << k.name;
      munmap(base, bytes);
    }
  }
}

}  // namespace
}  // namespace vt::kernels
