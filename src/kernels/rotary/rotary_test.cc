// Every row of the rotary kernel table against the definition evaluated in double and against
// the reference twin, on even row lengths around the vector widths, with a shared cos / sin row,
// in place, and with sentinels past each row (nothing written beyond n).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/rotary/rotary_table.h"

namespace vt::kernels {
namespace {

constexpr float kSentinel = 1234.5f;

// rows x n values at stride n + 3; the 3 gap floats hold kSentinel.
struct Rows {
  size_t rows, n, stride;
  std::vector<float> data;
  Rows(size_t r, size_t len, uint32_t seed, float lo, float hi)
      : rows(r), n(len), stride(len + 3), data(r * (len + 3), kSentinel) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    for (size_t i = 0; i < r; ++i)
      for (size_t j = 0; j < len; ++j) data[i * stride + j] = d(rng);
  }
  float at(size_t r, size_t j) const { return data[r * stride + j]; }
  bool SentinelsIntact() const {
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = n; j < stride; ++j)
        if (data[r * stride + j] != kSentinel) return false;
    return true;
  }
};

TEST(RotaryKernels, TableRowsAreNamedAndTheLastIsPortable) {
  auto rows = RotaryKernels();
  ASSERT_GE(rows.size(), 2u);
  EXPECT_STREQ(rows.back().isa, "portable");
  for (const auto& k : rows) {
    EXPECT_EQ(std::string(k.name).rfind("rotary_f32_f32_1x", 0), 0u) << k.name;
    EXPECT_EQ(FindRotaryKernel(k.name), &k);
  }
  EXPECT_TRUE(RotaryKernelForIsa("avx512").supported());
  EXPECT_STREQ(RotaryKernelForIsa("portable").isa, "portable");
}

TEST(RotaryKernels, RowsMatchTheDefinitionAndTheTwin) {
  for (const auto& k : RotaryKernels()) {
    if (!k.supported()) continue;
    for (size_t n : {2, 8, 18, 32, 34, 64, 66, 128, 258}) {
      for (bool shared_row : {false, true}) {
        SCOPED_TRACE(std::string(k.name) + " n=" + std::to_string(n) + " shared=" + std::to_string(shared_row));
        Rows x(3, n, 1, -2.0f, 2.0f), y(3, n, 2, 0, 0), twin(3, n, 2, 0, 0);
        Rows co(3, n, 3, -1.0f, 1.0f), si(3, n, 4, -1.0f, 1.0f);
        RotaryRowsCall c;
        c.rows = 3, c.n = n;
        c.x = x.data.data(), c.x_stride = static_cast<ptrdiff_t>(x.stride);
        c.cos = co.data.data(), c.sin = si.data.data();
        c.cs_stride = shared_row ? 0 : static_cast<ptrdiff_t>(co.stride);
        c.y = y.data.data(), c.y_stride = c.x_stride;
        k.ukernel(c);
        c.y = twin.data.data();
        RotaryRowsReference(c);
        const size_t h = n / 2;
        for (size_t r = 0; r < 3; ++r)
          for (size_t d = 0; d < n; ++d) {
            const size_t cr = shared_row ? 0 : r;
            const double rot = d < h ? -static_cast<double>(x.at(r, d + h)) : x.at(r, d - h);
            const double want = x.at(r, d) * static_cast<double>(co.at(cr, d)) + rot * si.at(cr, d);
            ASSERT_NEAR(y.at(r, d), want, 1e-6) << "r=" << r << " d=" << d;
            ASSERT_NEAR(y.at(r, d), twin.at(r, d), 5e-7) << "r=" << r << " d=" << d;
          }
        EXPECT_TRUE(y.SentinelsIntact());
        // In place gives the same values.
        Rows z = x;
        c.x = z.data.data();
        c.y = z.data.data();
        k.ukernel(c);
        for (size_t i = 0; i < z.data.size(); ++i) ASSERT_EQ(z.data[i], y.data[i]);
      }
    }
  }
}

}  // namespace
}  // namespace vt::kernels
