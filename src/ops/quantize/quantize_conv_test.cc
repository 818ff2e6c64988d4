// ConvInteger / QLinearConv against a direct int64 convolution: padding, strides, dilations,
// groups, auto_pad and per-channel weight zero points.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::AttrInts;
using testing::AttrString;
using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::RunOne;
using testing::Values;

// Direct 2-D convolution of centred values, pads [pt, pl, pb, pr].
std::vector<double> Direct(const std::vector<double>& x, int64_t n, int64_t c, int64_t h, int64_t w,
                           const std::vector<double>& k, int64_t m, int64_t kh, int64_t kw,
                           int64_t group, int64_t stride, int64_t dil, int64_t pt, int64_t pl,
                           int64_t oh, int64_t ow) {
  std::vector<double> y;
  const int64_t cg = c / group, mg = m / group;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < m; ++oc)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double s = 0;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t r = 0; r < kh; ++r)
              for (int64_t q = 0; q < kw; ++q) {
                const int64_t yy = i * stride - pt + r * dil, xx = j * stride - pl + q * dil;
                if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                const int64_t ic = (oc / mg) * cg + ci;
                s += x[((b * c + ic) * h + yy) * w + xx] * k[((oc * cg + ci) * kh + r) * kw + q];
              }
          y.push_back(s);
        }
  return y;
}

TEST(ConvInteger, GroupsStridesDilationsAndPads) {
  const int64_t n = 1, c = 4, h = 6, w = 5, m = 4, kh = 3, kw = 2, group = 2;
  std::vector<double> x(static_cast<size_t>(n * c * h * w)), k(static_cast<size_t>(m * 2 * kh * kw));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>((i * 37) % 251);
  for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<double>((i * 11) % 200);
  Tensor xt = MakeTensor(DType::kUInt8, {n, c, h, w}, x);
  Tensor kt = MakeTensor(DType::kUInt8, {m, 2, kh, kw}, k);
  std::vector<double> xc = x, kc = k;
  for (auto& v : xc) v -= 7;
  for (size_t i = 0; i < kc.size(); ++i) {
    const size_t zero_point = i / (2 * kh * kw) + 1;  // per output channel: 1, 2, 3, 4
    kc[i] -= static_cast<double>(zero_point);
  }
  Tensor y = RunOne(OpCall{"ConvInteger", 10,
                           {AttrInt("group", group), AttrInts("strides", {2, 1}),
                            AttrInts("dilations", {1, 2}), AttrInts("pads", {1, 0, 1, 2})},
                           {xt, kt, MakeTensor(DType::kUInt8, {}, {7}),
                            MakeTensor(DType::kUInt8, {4}, {1, 2, 3, 4})}});
  EXPECT_EQ(y.dtype(), DType::kInt32);
  const int64_t oh = (h + 2 - 3) / 2 + 1, ow = (w + 2 - 3) / 1 + 1;
  ASSERT_EQ(y.shape(), (Shape{n, m, oh, ow}));
  // Dilation differs per axis here, so the reference is spelled out.
  std::vector<double> want;
  const int64_t cg = 2, mg = 2;
  for (int64_t oc = 0; oc < m; ++oc)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double s = 0;
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t r = 0; r < kh; ++r)
            for (int64_t q = 0; q < kw; ++q) {
              const int64_t yy = i * 2 - 1 + r, xx = j - 0 + q * 2;
              if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
              const int64_t ic = (oc / mg) * cg + ci;
              s += xc[(ic * h + yy) * w + xx] * kc[((oc * cg + ci) * kh + r) * kw + q];
            }
        want.push_back(s);
      }
  EXPECT_EQ(Values(y), want);
}

TEST(ConvInteger, AutoPadSameUpperAndErrors) {
  std::vector<double> x(25), k(9, 1);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i);
  Tensor y = RunOne(OpCall{"ConvInteger", 10, {AttrString("auto_pad", "SAME_UPPER"), AttrInts("strides", {2, 2})},
                           {MakeTensor(DType::kUInt8, {1, 1, 5, 5}, x), MakeTensor(DType::kUInt8, {1, 1, 3, 3}, k)}});
  ASSERT_EQ(y.shape(), (Shape{1, 1, 3, 3}));
  EXPECT_EQ(Values(y), Direct(x, 1, 1, 5, 5, k, 1, 3, 3, 1, 2, 1, 1, 1, 3, 3));
  EXPECT_FALSE((OpCall{"ConvInteger", 10, {AttrInt("group", 2)},
                       {MakeTensor(DType::kUInt8, {1, 1, 5, 5}, x), MakeTensor(DType::kUInt8, {1, 1, 3, 3}, k)}}.Run().ok()));
  EXPECT_FALSE((OpCall{"ConvInteger", 10, {},
                       {MakeTensor(DType::kUInt8, {1, 5, 5}, x), MakeTensor(DType::kUInt8, {1, 1, 3, 3}, k)}}.Run().ok()));
}

TEST(QLinearConv, RequantizesPerChannelWithBias) {
  std::vector<double> x{10, 20, 30, 40};
  Tensor xt = MakeTensor(DType::kUInt8, {1, 1, 2, 2}, x);
  Tensor wt = MakeTensor(DType::kInt8, {2, 1, 1, 1}, {2, -1});
  auto u8 = [](double v) { return MakeTensor(DType::kUInt8, {}, {v}); };
  Tensor y = RunOne(OpCall{"QLinearConv", 10, {},
                           {xt, F32({}, {0.5}), u8(10), wt, F32({2}, {1, 2}),
                            MakeTensor(DType::kInt8, {2}, {0, 0}), F32({}, {1}), u8(50),
                            MakeTensor(DType::kInt32, {2}, {4, 0})}});
  // ch0: ((x-10)*2 + 4) * 0.5 + 50; ch1: (x-10)*-1 * 1 + 50
  EXPECT_EQ(Values(y), (std::vector<double>{52, 62, 72, 82, 50, 40, 30, 20}));
}

}  // namespace
}  // namespace vt::ops
