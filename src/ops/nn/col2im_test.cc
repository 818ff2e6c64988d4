// Col2Im against a gather-form reference (each image element sums the column entries whose
// block covers it) on odd sizes, plus element types and refused inputs.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInts;
using testing::Iota;
using testing::MakeTensor;
using testing::OpCall;
using testing::Values;

struct Geo {
  std::vector<int64_t> image, block, dil, pads, stride;
};

int64_t Blocks(const Geo& g, size_t d) {
  const size_t k = g.image.size();
  const int64_t span = g.dil[d] * (g.block[d] - 1) + 1;
  return (g.image[d] + g.pads[d] + g.pads[d + k] - span) / g.stride[d] + 1;
}

// Output element (n, c, p...) = sum over kernel offsets kk of column (c*B + kk, l) where block
// position l satisfies l_d * stride_d = p_d + pad_d - kk_d * dil_d on every axis.
std::vector<double> Reference(const Geo& g, int64_t n, int64_t c, const std::vector<double>& in) {
  const size_t k = g.image.size();
  int64_t bsize = 1, nblocks = 1, isize = 1;
  for (size_t d = 0; d < k; ++d) {
    bsize *= g.block[d];
    nblocks *= Blocks(g, d);
    isize *= g.image[d];
  }
  std::vector<double> out(static_cast<size_t>(n * c * isize), 0.0);
  for (int64_t nc = 0; nc < n * c; ++nc)
    for (int64_t pi = 0; pi < isize; ++pi)
      for (int64_t kk = 0; kk < bsize; ++kk) {
        int64_t prem = pi, krem = kk, l = 0, lscale = 1;
        bool hit = true;
        for (size_t d = k; d-- > 0;) {
          const int64_t p = prem % g.image[d], kd = krem % g.block[d];
          prem /= g.image[d];
          krem /= g.block[d];
          const int64_t q = p + g.pads[d] - kd * g.dil[d];
          if (q < 0 || q % g.stride[d] != 0 || q / g.stride[d] >= Blocks(g, d)) hit = false;
          l += (hit ? q / g.stride[d] : 0) * lscale;
          lscale *= Blocks(g, d);
        }
        if (hit) out[static_cast<size_t>(nc * isize + pi)] += in[static_cast<size_t>((nc * bsize + kk) * nblocks + l)];
      }
  return out;
}

void Check(const Geo& g, int64_t n, int64_t c, DType dt) {
  const size_t k = g.image.size();
  int64_t bsize = 1, nblocks = 1;
  for (size_t d = 0; d < k; ++d) {
    bsize *= g.block[d];
    nblocks *= Blocks(g, d);
  }
  std::vector<double> in(static_cast<size_t>(n * c * bsize * nblocks));
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>((i * 7) % 13) - 6.0;
  OpCall call{"Col2Im", 18,
              {AttrInts("dilations", g.dil), AttrInts("pads", g.pads), AttrInts("strides", g.stride)},
              {MakeTensor(dt, {n, c * bsize, nblocks}, in),
               MakeTensor(DType::kInt64, {static_cast<int64_t>(k)}, {g.image.begin(), g.image.end()}),
               MakeTensor(DType::kInt64, {static_cast<int64_t>(k)}, {g.block.begin(), g.block.end()})}};
  Tensor y = testing::RunOne(call);
  Shape want{n, c};
  want.insert(want.end(), g.image.begin(), g.image.end());
  ASSERT_EQ(y.shape(), want);
  ASSERT_EQ(y.dtype(), dt);
  EXPECT_EQ(Values(y), Reference(g, n, c, in));
}

TEST(Col2ImTest, TwoDOddSizesStridesDilationsPads) {
  Check({{7, 17}, {3, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}}, 1, 1, DType::kFloat32);
  Check({{7, 17}, {3, 5}, {2, 3}, {1, 2, 2, 1}, {2, 3}}, 3, 5, DType::kFloat32);
  Check({{33, 1}, {5, 1}, {1, 1}, {3, 0, 1, 0}, {3, 1}}, 2, 1, DType::kFloat64);
}

TEST(Col2ImTest, ThreeDAndIntegerTypes) {
  Check({{5, 7, 3}, {2, 3, 1}, {2, 1, 1}, {1, 0, 1, 0, 2, 1}, {1, 2, 1}}, 1, 3, DType::kFloat32);
  Check({{7, 9}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {2, 2}}, 2, 1, DType::kInt32);
  Check({{7, 9}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 1, 2, DType::kInt64);
  Check({{7, 9}, {3, 3}, {1, 1}, {0, 0, 0, 0}, {2, 1}}, 1, 1, DType::kInt8);
  Check({{7, 9}, {2, 3}, {1, 2}, {0, 0, 0, 0}, {1, 1}}, 1, 1, DType::kFloat16);
}

TEST(Col2ImTest, BadInputsNameNodeAndInput) {
  auto call = [](const Shape& xs, const std::vector<double>& img, const std::vector<double>& blk) {
    return OpCall{"Col2Im", 18, {},
                  {Iota(xs), MakeTensor(DType::kInt64, {static_cast<int64_t>(img.size())}, img),
                   MakeTensor(DType::kInt64, {static_cast<int64_t>(blk.size())}, blk)}};
  };
  auto expect_error = [](const OpCall& c, const std::string& text) {
    auto r = c.Run();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().ToString();
  };
  // 5x5 image, 2x2 blocks: 16 block positions, 4 rows per channel.
  expect_error(call({1, 4, 15}, {5, 5}, {2, 2}), "input 'input' (0) has L = 15 columns");
  expect_error(call({1, 6, 16}, {5, 5}, {2, 2}), "is not a multiple of prod(block_shape) = 4");
  expect_error(call({1, 4, 16}, {5, 5}, {2}), "input 'block_shape' (2) has 1");
  expect_error(call({4, 16}, {5, 5}, {2, 2}), "input 'input' (0) must be [N, C * prod(block_shape), L]");
  OpCall c = call({1, 4, 16}, {5, 5}, {2, 2});
  c.attrs = {AttrInts("pads", {1, 1})};
  expect_error(c, "attribute 'pads' has 2 values, expected 4");
}

}  // namespace
}  // namespace vt::ops
