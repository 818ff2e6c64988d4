#include "tools/value_print.h"

#include <gtest/gtest.h>

#include <numeric>

namespace vt::cli {
namespace {

TEST(FormatTensor, SmallTensorsAsNumPy) {
  EXPECT_EQ(FormatTensor(Tensor::FromF32({1, 2.5f, -3, 4, 5, 6}, {2, 3}), false),
            "[[ 1. 2.5 -3.],\n [ 4.  5.  6.]]");
  EXPECT_EQ(FormatTensor(Tensor::FromI64({3, -12, 7}), false), "[  3 -12   7]");
  EXPECT_EQ(FormatTensor(Tensor::ScalarF32(0.5f), false), "0.5");
  EXPECT_EQ(FormatTensor(Tensor::Zeros(DType::kFloat32, {0, 3}), false), "[]");
  EXPECT_EQ(FormatTensor(Tensor::Zeros(DType::kBool, {2}), false), "[False False]");
  // Rank 3: a blank line between the outermost blocks.
  std::vector<float> v(8);
  std::iota(v.begin(), v.end(), 0.f);
  EXPECT_EQ(FormatTensor(Tensor::FromF32(v, {2, 2, 2}), false),
            "[[[0. 1.],\n  [2. 3.]],\n\n [[4. 5.],\n  [6. 7.]]]");
}

TEST(FormatTensor, LargeTensorsKeepThreeAtEachEnd) {
  std::vector<int64_t> v(2000);
  std::iota(v.begin(), v.end(), 0);
  Tensor t = *Tensor::FromI64(v).Reshape({2, 1000});
  EXPECT_EQ(FormatTensor(t, false),
            "[[   0    1    2 ...  997  998  999],\n [1000 1001 1002 ... 1997 1998 1999]]");
  // --print-all: every element, rows wrapped at 75 columns.
  const std::string all = FormatTensor(t, true);
  EXPECT_EQ(all.find("..."), std::string::npos);
  EXPECT_NE(all.find(" 1500 "), std::string::npos);
  size_t start = 0;
  while (start < all.size()) {
    size_t nl = all.find('\n', start);
    if (nl == std::string::npos) nl = all.size();
    EXPECT_LE(nl - start, 75u);
    start = nl + 1;
  }
  // 1000 elements or fewer are never elided.
  std::vector<float> f(1000, 1.f);
  EXPECT_EQ(FormatTensor(Tensor::FromF32(f, {1000}), false).find("..."), std::string::npos);
}

}  // namespace
}  // namespace vt::cli
