#include "vtensor/tensor/tensor.h"

#include <gtest/gtest.h>

#include <numeric>

namespace vt {
namespace {

Tensor Iota(const Shape& shape) {
  Tensor t = Tensor::Empty(DType::kFloat32, shape);
  std::iota(t.mutable_data<float>(), t.mutable_data<float>() + t.numel(), 0.0f);
  return t;
}

TEST(TensorTest, TransposeIsAViewAndContiguousCopies) {
  Tensor t = Iota({2, 3});
  Tensor v = t.WithLayout(*t.layout().Transpose({1, 0}));
  EXPECT_EQ(v.storage(), t.storage());  // no copy
  EXPECT_FALSE(v.is_contiguous());
  EXPECT_EQ(v.shape(), (Shape{3, 2}));
  Tensor c = v.Contiguous();
  const float want[] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c.data<float>()[i], want[i]);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(v.GetDouble(i), want[i]);
}

TEST(TensorTest, NegativeStepSliceView) {
  Tensor t = Iota({5});
  Tensor v = t.WithLayout(*t.layout().Slice(0, 4, -2, 3));
  Tensor c = v.Contiguous();
  EXPECT_EQ(c.shape(), (Shape{3}));
  EXPECT_EQ(c.data<float>()[0], 4);
  EXPECT_EQ(c.data<float>()[1], 2);
  EXPECT_EQ(c.data<float>()[2], 0);
}

TEST(TensorTest, BroadcastViewHasZeroStrides) {
  Tensor t = Iota({3, 1});
  auto l = t.layout().BroadcastTo({2, 3, 4});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->strides(), (std::vector<int64_t>{0, 1, 0}));
  Tensor c = t.WithLayout(*l).Contiguous();
  EXPECT_EQ(c.numel(), 24);
  EXPECT_EQ(c.data<float>()[4 * 2 + 1], 2);
  EXPECT_EQ(c.data<float>()[12 + 4], 1);
  EXPECT_FALSE(t.layout().BroadcastTo({2, 2}).ok());
}

TEST(TensorTest, ReshapeOfViewCopiesReshapeOfContiguousShares) {
  Tensor t = Iota({2, 3});
  auto r = t.Reshape({3, 2});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->storage(), t.storage());
  EXPECT_FALSE(t.Reshape({4}).ok());
  Tensor v = t.WithLayout(*t.layout().Transpose({1, 0}));
  auto r2 = v.Reshape({6});
  ASSERT_TRUE(r2.ok());
  EXPECT_NE(r2->storage(), t.storage());
  EXPECT_EQ(r2->data<float>()[1], 3);
}

TEST(TensorTest, StringTensorsCopyStrings) {
  Tensor t = Tensor::Empty(DType::kString, {2});
  t.mutable_data<std::string>()[0] = "a";
  t.mutable_data<std::string>()[1] = "bc";
  Tensor c = t.Clone();
  t.mutable_data<std::string>()[1] = "zz";
  EXPECT_EQ(c.data<std::string>()[1], "bc");
}

TEST(TensorTest, HalfAndBFloat16RoundTrip) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f}) {
    EXPECT_EQ(HalfToFloat(FloatToHalf(f)), f) << f;
  }
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);  // overflow to +inf
  EXPECT_EQ(BFloat16ToFloat(FloatToBFloat16(1.0f)), 1.0f);
  // round to nearest even: 1 + 2^-8 is a tie between 1 and 1+2^-7 -> 1
  EXPECT_EQ(BFloat16ToFloat(FloatToBFloat16(1.00390625f)), 1.0f);
}

}  // namespace
}  // namespace vt

namespace vt {
namespace {

TEST(TensorBorrowTest, ViewsCallerMemoryWithoutCopy) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  auto t = Tensor::Borrow(DType::kFloat32, {2, 3}, data, sizeof data);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->data<float>(), data);
  EXPECT_EQ(t->storage()->kind(), Storage::Kind::kBorrowed);
  EXPECT_TRUE(t->storage()->read_only());
  data[4] = 50;  // the tensor sees the caller's bytes
  EXPECT_EQ(t->data<float>()[4], 50.f);
  auto empty = Tensor::Borrow(DType::kInt64, {0, 4}, nullptr, 0);
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->numel(), 0);
}

TEST(TensorBorrowTest, RejectsWhatItCannotView) {
  float data[6] = {};
  auto size = Tensor::Borrow(DType::kFloat32, {2, 3}, data, 20);
  ASSERT_FALSE(size.ok());
  EXPECT_NE(size.status().message().find("needs 24 bytes, got 20"), std::string::npos);
  EXPECT_FALSE(Tensor::Borrow(DType::kString, {1}, data, sizeof data).ok());
  EXPECT_FALSE(Tensor::Borrow(DType::kFloat32, {-1, 3}, data, sizeof data).ok());
  EXPECT_FALSE(Tensor::Borrow(DType::kFloat32, {2, 3}, nullptr, sizeof data).ok());
  auto overflow = Tensor::Borrow(DType::kFloat32, {int64_t{1} << 40, int64_t{1} << 40}, data, 4);
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.status().message().find("too many elements"), std::string::npos);
}

}  // namespace
}  // namespace vt
