#include "kernels/conv/conv_window.h"

#include <gtest/gtest.h>

#include <vector>

namespace vt::kernels {
namespace {

// The definition, position by position: grid index -> landing index -> offset or -1.
int64_t Landing(const ConvTapWalk& w, const int64_t* tap, int64_t flat) {
  int64_t g[kMaxConvRank];
  UnflattenConvIndex(flat, w.grid, w.rank, g);
  int64_t off = 0;
  for (int i = 0; i < w.rank; ++i) {
    const int64_t pos = g[i] * w.stride[i] - w.pad[i] + tap[i] * w.dilation[i];
    if (pos < 0 || pos >= w.target[i]) return -1;
    off = off * w.target[i] + pos;
  }
  return off;
}

TEST(ConvWindowTest, WalkMatchesTheDefinitionFromAnyStart) {
  // 3-D: output grid 3x4x5 over an input 7x9x17 with strides 2,1,3, dilations 1,2,1, pads 1,2,0.
  const int64_t grid[] = {3, 4, 5}, target[] = {7, 9, 17}, stride[] = {2, 1, 3},
                dilation[] = {1, 2, 1}, pad[] = {1, 2, 0};
  const ConvTapWalk w{3, grid, target, stride, dilation, pad};
  const int64_t total = 3 * 4 * 5;
  for (const std::vector<int64_t>& tap :
       {std::vector<int64_t>{0, 0, 0}, {1, 2, 3}, {2, 0, 1}}) {
    for (int64_t first : {int64_t{0}, int64_t{7}, int64_t{33}}) {
      std::vector<int64_t> got;
      ForEachTapPosition(w, tap.data(), first, total - first, [&](int64_t q, int64_t off) {
        EXPECT_EQ(q, static_cast<int64_t>(got.size()));
        got.push_back(off);
      });
      ASSERT_EQ(static_cast<int64_t>(got.size()), total - first);
      int64_t pads = 0;
      for (int64_t q = 0; q < total - first; ++q) {
        EXPECT_EQ(got[q], Landing(w, tap.data(), first + q)) << "first " << first << " q " << q;
        pads += got[q] < 0;
      }
      if (tap[0] == 0 && first == 0) {
        EXPECT_GT(pads, 0);  // the leading pads are visited
      }
    }
  }
}

TEST(ConvWindowTest, UnflattenIsRowMajor) {
  const int64_t extent[] = {2, 3, 4};
  int64_t idx[3];
  UnflattenConvIndex(1 * 12 + 2 * 4 + 3, extent, 3, idx);
  EXPECT_EQ(idx[0], 1);
  EXPECT_EQ(idx[1], 2);
  EXPECT_EQ(idx[2], 3);
}

}  // namespace
}  // namespace vt::kernels
