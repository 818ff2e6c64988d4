// MaxRoiPool against a brute-force reference (each output the maximum over the input pixels
// whose bin index, computed per pixel, is that output's) on odd sizes, and refused inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrFloat;
using testing::AttrInts;
using testing::MakeTensor;
using testing::OpCall;
using testing::Values;

TEST(MaxRoiPoolTest, OddSizesAgainstPerPixelBins) {
  const int64_t N = 2, C = 3, H = 7, W = 17, PH = 3, PW = 5;
  std::vector<double> x(N * C * H * W);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * i) * 10;
  const float scale = 0.5f;
  // (batch, x1, y1, x2, y2) in input units before scaling; the last one runs off the image.
  const std::vector<double> rois = {0, 0, 0, 32, 12, 1, 4.6, 2.2, 20, 9, 1, 10, 6, 40, 30, 0, 3, 3, 3, 3};
  const int64_t R = 4;
  OpCall c{"MaxRoiPool", 22, {AttrInts("pooled_shape", {PH, PW}), AttrFloat("spatial_scale", scale)},
           {MakeTensor(DType::kFloat64, {N, C, H, W}, x), MakeTensor(DType::kFloat64, {R, 5}, rois)}};
  const Tensor y = testing::RunOne(c);
  ASSERT_EQ(y.shape(), Shape({R, C, PH, PW}));
  const std::vector<double> got = Values(y);
  for (int64_t r = 0; r < R; ++r) {
    const double* q = &rois[static_cast<size_t>(r * 5)];
    const int64_t b = static_cast<int64_t>(q[0]);
    const int64_t x1 = std::llround(q[1] * scale), y1 = std::llround(q[2] * scale);
    const int64_t x2 = std::llround(q[3] * scale), y2 = std::llround(q[4] * scale);
    const int64_t rh = std::max<int64_t>(y2 - y1 + 1, 1), rw = std::max<int64_t>(x2 - x1 + 1, 1);
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t ph = 0; ph < PH; ++ph)
        for (int64_t pw = 0; pw < PW; ++pw) {
          double want = -INFINITY;
          for (int64_t i = 0; i < H; ++i)
            for (int64_t j = 0; j < W; ++j) {
              // Pixel (i, j) lies in bin ph when floor(ph*rh/PH) <= i - y1 < ceil((ph+1)*rh/PH),
              // i.e. ph*rh < (di+1)*PH and di*PH < (ph+1)*rh in integers.
              const int64_t di = i - y1, dj = j - x1;
              if (!(ph * rh < (di + 1) * PH && di * PH < (ph + 1) * rh) ||
                  !(pw * rw < (dj + 1) * PW && dj * PW < (pw + 1) * rw))
                continue;
              want = std::max(want, x[static_cast<size_t>(((b * C + ch) * H + i) * W + j)]);
            }
          if (want == -INFINITY) want = 0;
          ASSERT_EQ(got[static_cast<size_t>(((r * C + ch) * PH + ph) * PW + pw)], want)
              << "roi " << r << " bin " << ph << "," << pw;
        }
  }
}

TEST(MaxRoiPoolTest, Float16KeepsValuesExactly) {
  OpCall c{"MaxRoiPool", 1, {AttrInts("pooled_shape", {1, 1})},
           {MakeTensor(DType::kFloat16, {1, 1, 3, 3}, {1, 9, 2, 3, 4.5, 5, 6, 7, 8}),
            MakeTensor(DType::kFloat16, {1, 5}, {0, 0, 0, 1, 1})}};
  const Tensor y = testing::RunOne(c);
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(Values(y), std::vector<double>({9}));
}

TEST(MaxRoiPoolTest, BadInputsNameNodeAndInput) {
  auto expect_error = [](const OpCall& c, const std::string& text) {
    auto r = c.Run();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().ToString();
  };
  OpCall c{"MaxRoiPool", 22, {AttrInts("pooled_shape", {2, 2})},
           {testing::Iota({1, 1, 4, 4}), testing::F32({1, 4}, {0, 0, 0, 1})}};
  expect_error(c, "input 'rois' (1) must be [num_rois, 5], got [1,4]");
  c.inputs[1] = testing::F32({1, 5}, {2, 0, 0, 1, 1});
  expect_error(c, "input 'rois' (1) row 0: batch_id 2 outside [0, 1)");
  c.inputs[1] = testing::F32({1, 5}, {0, 0, 0, 1, 1});
  c.attrs.clear();
  expect_error(c, "attribute 'pooled_shape' must be two positive values");
}

}  // namespace
}  // namespace vt::ops
