// Every row of the row-wise kernel table against the reference twin and against the
// definitions evaluated in double, on odd row lengths, with every optional operand, in place,
// and with sentinels past each row (nothing written beyond n).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/rowwise/rowwise_table.h"

namespace vt::kernels {
namespace {

constexpr float kSentinel = 1234.5f;
const size_t kLengths[] = {1, 2, 7, 16, 17, 33, 64, 257, 1024};

std::vector<float> Random(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// rows x n values at stride n + 3; the 3 gap floats hold kSentinel.
struct Rows {
  size_t rows, n, stride;
  std::vector<float> data;
  Rows(size_t r, size_t len, uint32_t seed, float lo, float hi)
      : rows(r), n(len), stride(len + 3), data(r * (len + 3), kSentinel) {
    auto v = Random(r * len, seed, lo, hi);
    for (size_t i = 0; i < r; ++i)
      for (size_t j = 0; j < len; ++j) data[i * stride + j] = v[i * len + j];
  }
  float at(size_t r, size_t j) const { return data[r * stride + j]; }
  float* row(size_t r) { return data.data() + r * stride; }
  bool SentinelsIntact() const {
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = n; j < stride; ++j)
        if (data[r * stride + j] != kSentinel) return false;
    return true;
  }
};

double NormExact(const NormRowsCall& c, const Rows& x, const Rows* skip, size_t r, size_t j) {
  std::vector<double> v(c.n);
  double mean = 0, var = 0;
  for (size_t i = 0; i < c.n; ++i) {
    v[i] = x.at(r, i) + (skip ? skip->at(r, i) : 0.0) + (c.bias ? c.bias[i] : 0.0);
    mean += v[i];
  }
  mean = c.rms ? 0.0 : mean / static_cast<double>(c.n);
  for (size_t i = 0; i < c.n; ++i) var += (v[i] - mean) * (v[i] - mean);
  var /= static_cast<double>(c.n);
  const double y = (v[j] - mean) / std::sqrt(var + c.epsilon) * c.gamma[j];
  return c.beta && !c.rms ? y + c.beta[j] : y;
}

TEST(RowwiseKernels, TableRowsAreNamedAndTheLastIsPortable) {
  auto rows = RowwiseKernels();
  ASSERT_GE(rows.size(), 2u);
  EXPECT_STREQ(rows.back().isa, "portable");
  for (const auto& k : rows) {
    EXPECT_EQ(std::string(k.name).rfind("rowwise_f32_f32_1x", 0), 0u) << k.name;
    EXPECT_EQ(FindRowwiseKernel(k.name), &k);
  }
  EXPECT_TRUE(DefaultRowwiseKernel().supported());
}

TEST(RowwiseKernels, NormRowsMatchTheDefinitionWithEveryOperand) {
  for (const auto& k : RowwiseKernels()) {
    if (!k.supported()) continue;
    for (size_t n : kLengths)
      for (int variant = 0; variant < 8; ++variant) {
        const bool rms = variant & 1, with_skip = variant & 2, with_bias_sum = variant & 4;
        SCOPED_TRACE(std::string(k.name) + " n=" + std::to_string(n) +
                     " variant=" + std::to_string(variant));
        const size_t rows = 3;
        Rows x(rows, n, 11 + variant, -3.0f, 5.0f), skip(rows, n, 23, -2.0f, 2.0f);
        Rows y(rows, n, 5, 0, 0), sum(rows, n, 6, 0, 0);
        auto gamma = Random(n, 31, 0.5f, 1.5f), beta = Random(n, 37, -0.5f, 0.5f);
        auto bias = Random(n, 41, -1.0f, 1.0f);
        NormRowsCall c;
        c.rows = rows, c.n = n, c.rms = rms, c.epsilon = 1e-5f;
        c.x = x.data.data(), c.x_stride = static_cast<ptrdiff_t>(x.stride);
        if (with_skip) c.skip = skip.data.data(), c.skip_stride = static_cast<ptrdiff_t>(skip.stride);
        if (with_bias_sum) {
          c.bias = bias.data();
          c.sum = sum.data.data(), c.sum_stride = static_cast<ptrdiff_t>(sum.stride);
        }
        c.gamma = gamma.data();
        c.beta = rms ? nullptr : beta.data();
        c.y = y.data.data(), c.y_stride = static_cast<ptrdiff_t>(y.stride);
        k.norm(c);
        // n == 1 normalises a constant row: y = beta (or 0), no division by zero.
        for (size_t r = 0; r < rows; ++r)
          for (size_t j = 0; j < n; ++j) {
            const double want = NormExact(c, x, with_skip ? &skip : nullptr, r, j);
            ASSERT_NEAR(y.at(r, j), want, 2e-5 * (1.0 + std::fabs(want))) << "r=" << r << " j=" << j;
            if (with_bias_sum) {
              ASSERT_FLOAT_EQ(sum.at(r, j), x.at(r, j) + (with_skip ? skip.at(r, j) : 0.0f) + bias[j]);
            }
          }
        EXPECT_TRUE(y.SentinelsIntact());
        EXPECT_TRUE(sum.SentinelsIntact());
      }
  }
}

TEST(RowwiseKernels, NormRowsInPlaceEqualsOutOfPlace) {
  for (const auto& k : RowwiseKernels()) {
    if (!k.supported()) continue;
    for (size_t n : kLengths) {
      Rows x(2, n, 3, -1.0f, 1.0f), skip(2, n, 4, -1.0f, 1.0f), y(2, n, 5, 0, 0);
      auto gamma = Random(n, 6, 0.5f, 1.5f);
      NormRowsCall c;
      c.rows = 2, c.n = n, c.gamma = gamma.data();
      c.x = x.data.data(), c.x_stride = static_cast<ptrdiff_t>(x.stride);
      c.skip = skip.data.data(), c.skip_stride = c.x_stride;
      c.y = y.data.data(), c.y_stride = c.x_stride;
      k.norm(c);
      c.y = skip.data.data();  // the residual stream overwritten by its own normalisation
      k.norm(c);
      for (size_t i = 0; i < y.data.size(); ++i) ASSERT_EQ(y.data[i], skip.data[i]) << k.name << " n=" << n;
    }
  }
}

double ActExact(RowAct act, double x) {
  switch (act) {
    case RowAct::kNone: return x;
    case RowAct::kRelu: return x > 0 ? x : 0;
    case RowAct::kGeluErf: return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case RowAct::kGeluTanh:  // 0.5 x (1 + tanh(u)) without its cancellation for u << 0
      return x / (1 + std::exp(-2 * std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case RowAct::kSilu: return x / (1 + std::exp(-x));
  }
  return x;
}

TEST(RowwiseKernels, ActivationsMatchTheDefinitionAcrossTheirRange) {
  const RowAct acts[] = {RowAct::kNone, RowAct::kRelu, RowAct::kGeluErf, RowAct::kGeluTanh,
                         RowAct::kSilu};
  for (const auto& k : RowwiseKernels()) {
    if (!k.supported()) continue;
    for (RowAct act : acts)
      for (size_t n : kLengths)
        for (int variant = 0; variant < 4; ++variant) {
          SCOPED_TRACE(std::string(k.name) + " act=" + std::to_string(static_cast<int>(act)) +
                       " n=" + std::to_string(n) + " variant=" + std::to_string(variant));
          Rows x(2, n, 7 + static_cast<uint32_t>(n), -14.0f, 14.0f);
          Rows m(2, n, 8, -2.0f, 2.0f), y(2, n, 9, 0, 0);
          auto bias = Random(n, 10, -1.0f, 1.0f);
          if (n >= 7) {  // exact zeros, signed zero, the region near 0 and far tails
            float* r0 = x.row(0);
            r0[0] = 0.0f, r0[1] = -0.0f, r0[2] = 1e-6f, r0[3] = -3e-4f, r0[4] = -60.0f;
            r0[5] = 80.0f, r0[6] = -9.5f;
          }
          ActRowsCall c;
          c.rows = 2, c.n = n, c.act = act;
          c.x = x.data.data(), c.x_stride = static_cast<ptrdiff_t>(x.stride);
          if (variant & 1) c.bias = bias.data();
          if (variant & 2) c.mul = m.data.data(), c.mul_stride = c.x_stride;
          c.y = y.data.data(), c.y_stride = c.x_stride;
          k.act(c);
          for (size_t r = 0; r < 2; ++r)
            for (size_t j = 0; j < n; ++j) {
              const double in = static_cast<double>(x.at(r, j)) + (c.bias ? bias[j] : 0.0f);
              double want = ActExact(act, static_cast<float>(in));
              if (c.mul) want *= m.at(r, j);
              // Relative error of a few 1e-7 (the exp, the erfc fit, the final rounding); the
              // erf tail adds the roundings of z = x / sqrt(2) and of -z^2 + P(t) carried into the
              // exp: about 2 x^2 u. Below 1e-36: exp results under FLT_MIN are flushed to 0.
              // The tanh form likewise carries the rounding of its argument 2u into the exp.
              const double two_u = 2 * std::sqrt(2 / M_PI) * (in + 0.044715 * in * in * in);
              const double tail = act == RowAct::kGeluErf    ? 1.2e-7 * in * in
                                  : act == RowAct::kGeluTanh ? 2.4e-7 * std::fabs(two_u)
                                                             : 0.0;
              ASSERT_NEAR(y.at(r, j), want, (1e-6 + tail) * std::fabs(want) + 1e-36)
                  << "x=" << x.at(r, j) << " r=" << r << " j=" << j;
            }
          EXPECT_TRUE(y.SentinelsIntact());
        }
  }
}

TEST(RowwiseKernels, ActivationsKeepNaNAndSaturate) {
  for (const auto& k : RowwiseKernels()) {
    if (!k.supported()) continue;
    for (RowAct act : {RowAct::kGeluErf, RowAct::kGeluTanh, RowAct::kSilu}) {
      std::vector<float> x = {std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(), 1e30f, -1e30f};
      std::vector<float> y(x.size());
      ActRowsCall c;
      c.rows = 1, c.n = x.size(), c.act = act, c.x = x.data(), c.y = y.data();
      k.act(c);
      EXPECT_TRUE(std::isnan(y[0])) << k.name;
      EXPECT_EQ(y[2], 1e30f) << k.name;
      EXPECT_EQ(y[3], 0.0f) << k.name;
    }
  }
}

TEST(RowwiseKernels, RotaryMatchesTwinAndDefinition) {
  for (const auto& k : RowwiseKernels()) {
    if (!k.supported()) continue;
    for (size_t n : {2, 8, 18, 32, 34, 64, 128, 258}) {
      for (bool shared_row : {false, true}) {
        SCOPED_TRACE(std::string(k.name) + " n=" + std::to_string(n));
        Rows x(3, n, 1, -2.0f, 2.0f), y(3, n, 2, 0, 0);
        Rows co(3, n, 3, -1.0f, 1.0f), si(3, n, 4, -1.0f, 1.0f);
        RotaryRowsCall c;
        c.rows = 3, c.n = n;
        c.x = x.data.data(), c.x_stride = static_cast<ptrdiff_t>(x.stride);
        c.cos = co.data.data(), c.sin = si.data.data();
        c.cs_stride = shared_row ? 0 : static_cast<ptrdiff_t>(co.stride);
        c.y = y.data.data(), c.y_stride = c.x_stride;
        k.rotary(c);
        const size_t h = n / 2;
        for (size_t r = 0; r < 3; ++r)
          for (size_t d = 0; d < n; ++d) {
            const size_t cr = shared_row ? 0 : r;
            const double rot = d < h ? -static_cast<double>(x.at(r, d + h)) : x.at(r, d - h);
            const double want = x.at(r, d) * static_cast<double>(co.at(cr, d)) + rot * si.at(cr, d);
            ASSERT_NEAR(y.at(r, d), want, 1e-6) << "r=" << r << " d=" << d;
          }
        EXPECT_TRUE(y.SentinelsIntact());
        // In place gives the same values.
        Rows z = x;
        c.y = z.data.data();
        c.x = z.data.data();
        k.rotary(c);
        for (size_t i = 0; i < z.data.size(); ++i) ASSERT_EQ(z.data[i], y.data[i]);
      }
    }
  }
}

TEST(RowwiseKernels, VectorRowsAgreeWithTheTwin) {
  const RowwiseKernel& twin = PortableRowwiseKernel();
  for (const auto& k : RowwiseKernels()) {
    if (!k.supported() || &k == &twin) continue;
    for (size_t n : kLengths) {
      Rows x(4, n, 99, -4.0f, 4.0f), a(4, n, 0, 0, 0), b(4, n, 0, 0, 0);
      auto gamma = Random(n, 7, 0.5f, 1.5f), beta = Random(n, 8, -1.0f, 1.0f);
      NormRowsCall c;
      c.rows = 4, c.n = n, c.gamma = gamma.data(), c.beta = beta.data();
      c.x = x.data.data(), c.x_stride = static_cast<ptrdiff_t>(x.stride);
      c.y = a.data.data(), c.y_stride = c.x_stride;
      k.norm(c);
      c.y = b.data.data();
      twin.norm(c);
      for (size_t i = 0; i < a.data.size(); ++i)
        ASSERT_NEAR(a.data[i], b.data[i], 1e-5 * (1 + std::fabs(b.data[i]))) << k.name << " n=" << n;
    }
  }
}

}  // namespace
}  // namespace vt::kernels
