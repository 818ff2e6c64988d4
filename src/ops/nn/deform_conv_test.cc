// DeformConv: zero offsets against the Conv kernel (2-D and 3-D, groups, strides, dilations,
// pads), fractional offsets with mask, bias and offset groups against a per-point bilinear
// reference on odd sizes, and refused inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::AttrInts;
using testing::MakeTensor;
using testing::OpCall;
using testing::Values;

std::vector<double> Wave(int64_t n, double a, double b) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(a * i + b);
  return v;
}

std::vector<Attribute> ConvAttrs(int64_t group, const std::vector<int64_t>& strides,
                                 const std::vector<int64_t>& dil, const std::vector<int64_t>& pads) {
  return {AttrInt("group", group), AttrInts("strides", strides), AttrInts("dilations", dil),
          AttrInts("pads", pads)};
}

void CheckZeroOffsetIsConv(const Shape& xs, const Shape& ws, int64_t group,
                           const std::vector<int64_t>& strides, const std::vector<int64_t>& dil,
                           const std::vector<int64_t>& pads, DType dt) {
  const auto attrs = ConvAttrs(group, strides, dil, pads);
  const Tensor x = MakeTensor(dt, xs, Wave(NumElements(xs), 0.37, 0.1));
  const Tensor w = MakeTensor(dt, ws, Wave(NumElements(ws), 0.91, 0.7));
  const Tensor conv = testing::RunOne(OpCall{"Conv", 11, attrs, {x, w}});
  Shape off{xs[0], NumElements(Shape(ws.begin() + 2, ws.end())) * static_cast<int64_t>(ws.size() - 2)};
  off.insert(off.end(), conv.shape().begin() + 2, conv.shape().end());
  const Tensor y = testing::RunOne(
      OpCall{"DeformConv", 19, attrs, {x, w, MakeTensor(dt, off, std::vector<double>(NumElements(off), 0.0))}});
  ASSERT_EQ(y.shape(), conv.shape());
  const std::vector<double> a = Values(conv), b = Values(y);
  const double tol = dt == DType::kFloat64 ? 1e-12 : 1e-5;
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(b[i], a[i], tol * (1 + std::fabs(a[i])));
}

TEST(DeformConvTest, ZeroOffsetsEqualConv) {
  CheckZeroOffsetIsConv({1, 3, 7, 17}, {5, 3, 3, 2}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, DType::kFloat32);
  CheckZeroOffsetIsConv({2, 4, 9, 7}, {6, 2, 3, 3}, 2, {2, 1}, {1, 2}, {1, 2, 0, 1}, DType::kFloat64);
  CheckZeroOffsetIsConv({1, 2, 5, 7, 3}, {3, 2, 2, 3, 1}, 1, {1, 2, 1}, {2, 1, 1}, {1, 0, 0, 0, 1, 1},
                        DType::kFloat32);
}

// 2-D bilinear sample with every corner outside the image counting as zero.
double Bilinear(const std::vector<double>& x, size_t base, int64_t h, int64_t w, double py, double px) {
  const double fy = std::floor(py), fx = std::floor(px);
  double acc = 0;
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      const int64_t iy = static_cast<int64_t>(fy) + dy, ix = static_cast<int64_t>(fx) + dx;
      if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
      const double wy = dy ? py - fy : 1 - (py - fy), wx = dx ? px - fx : 1 - (px - fx);
      acc += wy * wx * x[base + static_cast<size_t>(iy * w + ix)];
    }
  return acc;
}

TEST(DeformConvTest, FractionalOffsetsMaskBiasOffsetGroups) {
  const int64_t n = 2, c = 4, h = 7, w = 9, oc = 3, kh = 3, kw = 2, og = 2;
  const int64_t sh = 2, sw = 1, dh = 1, dw = 2, ph = 1, pw = 1;
  const int64_t oh = (h + 2 * ph - (dh * (kh - 1) + 1)) / sh + 1;
  const int64_t ow = (w + 2 * pw - (dw * (kw - 1) + 1)) / sw + 1;
  const std::vector<double> x = Wave(n * c * h * w, 0.43, 0.2), wt = Wave(oc * c * kh * kw, 0.77, 1.1);
  const std::vector<double> off = Wave(n * og * kh * kw * 2 * oh * ow, 1.37, 0.5);  // in [-1, 1]
  std::vector<double> mask = Wave(n * og * kh * kw * oh * ow, 0.29, 0.9), bias = {0.5, -1.25, 2};
  std::vector<double> scaled_off(off.size());
  for (size_t i = 0; i < off.size(); ++i) scaled_off[i] = 2.5 * off[i];  // some samples leave the image
  OpCall call{"DeformConv", 22,
              {AttrInt("offset_group", og), AttrInts("kernel_shape", {kh, kw}), AttrInts("strides", {sh, sw}),
               AttrInts("dilations", {dh, dw}), AttrInts("pads", {ph, pw, ph, pw})},
              {MakeTensor(DType::kFloat64, {n, c, h, w}, x), MakeTensor(DType::kFloat64, {oc, c, kh, kw}, wt),
               MakeTensor(DType::kFloat64, {n, og * kh * kw * 2, oh, ow}, scaled_off),
               MakeTensor(DType::kFloat64, {oc}, bias),
               MakeTensor(DType::kFloat64, {n, og * kh * kw, oh, ow}, mask)}};
  const Tensor y = testing::RunOne(call);
  ASSERT_EQ(y.shape(), Shape({n, oc, oh, ow}));
  const std::vector<double> got = Values(y);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double want = bias[static_cast<size_t>(o)];
          for (int64_t ci = 0; ci < c; ++ci) {
            const int64_t g = ci / (c / og);
            for (int64_t a = 0; a < kh; ++a)
              for (int64_t e = 0; e < kw; ++e) {
                const int64_t kk = a * kw + e;
                auto at = [&](int64_t ch) {
                  return static_cast<size_t>((((b * og + g) * kh * kw + kk) * 2 + ch) * oh * ow + i * ow + j);
                };
                const double py = i * sh - ph + a * dh + scaled_off[at(0)];
                const double px = j * sw - pw + e * dw + scaled_off[at(1)];
                const double m = mask[static_cast<size_t>(((b * og + g) * kh * kw + kk) * oh * ow + i * ow + j)];
                want += wt[static_cast<size_t>(((o * c + ci) * kh + a) * kw + e)] * m *
                        Bilinear(x, static_cast<size_t>((b * c + ci) * h * w), h, w, py, px);
              }
          }
          ASSERT_NEAR(got[static_cast<size_t>(((b * oc + o) * oh + i) * ow + j)], want, 1e-12);
        }
}

TEST(DeformConvTest, Float16AndBFloat16RoundOnce) {
  const Shape xs{1, 2, 5, 7}, ws{3, 2, 2, 3}, offs{1, 12, 4, 5};
  const std::vector<double> x = Wave(70, 0.5, 0), w = Wave(36, 0.3, 1), off = Wave(240, 0.9, 0.2);
  const Tensor ref = testing::RunOne(OpCall{"DeformConv", 22, {},
      {MakeTensor(DType::kFloat32, xs, x), MakeTensor(DType::kFloat32, ws, w), MakeTensor(DType::kFloat32, offs, off)}});
  // float16 inputs are the float32 values rounded; compare with a tolerance of a few half ulps.
  const Tensor y = testing::RunOne(OpCall{"DeformConv", 22, {},
      {MakeTensor(DType::kFloat16, xs, x), MakeTensor(DType::kFloat16, ws, w), MakeTensor(DType::kFloat16, offs, off)}});
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  const std::vector<double> a = Values(ref), b = Values(y);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(b[i], a[i], 2e-2);
}

TEST(DeformConvTest, BadInputsNameNodeAndInput) {
  const Tensor x = MakeTensor(DType::kFloat32, {1, 2, 5, 5}, Wave(50, 0.1, 0));
  const Tensor w = MakeTensor(DType::kFloat32, {1, 2, 3, 3}, Wave(18, 0.2, 0));
  auto expect_error = [](const OpCall& c, const std::string& text) {
    auto r = c.Run();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().ToString();
  };
  OpCall c{"DeformConv", 19, {}, {x, w, MakeTensor(DType::kFloat32, {1, 18, 3, 4}, {})}};
  expect_error(c, "input 'offset' (2): expected shape [1,18,3,3]");
  c.inputs[2] = MakeTensor(DType::kFloat32, {1, 18, 3, 3}, {});
  c.inputs.push_back(MakeTensor(DType::kFloat32, {2}, {0, 0}));
  expect_error(c, "input 'B' (3): expected shape [1], got [2]");
  c.inputs[3] = MakeTensor(DType::kFloat32, {1}, {0});
  c.inputs.push_back(MakeTensor(DType::kFloat32, {1, 18, 3, 3}, {}));
  expect_error(c, "input 'mask' (4): expected shape [1,9,3,3]");
  c.inputs.resize(3);
  c.inputs[1] = MakeTensor(DType::kFloat64, {1, 2, 3, 3}, {});
  expect_error(c, "input 'W' (1) has element type float64");
  c.inputs[1] = w;
  c.attrs = {AttrInt("offset_group", 3)};
  expect_error(c, "not divisible by offset_group 3");
  c.attrs = {AttrInts("kernel_shape", {2, 2})};
  expect_error(c, "attribute 'kernel_shape' [2,2] differs from the kernel");
}

}  // namespace
}  // namespace vt::ops
