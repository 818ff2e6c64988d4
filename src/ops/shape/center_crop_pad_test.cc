// CenterCropPad against an element-by-element reference on odd sizes.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInts;
using testing::Iota;
using testing::MakeTensor;
using testing::OpCall;
using testing::Values;

// Reference: output element at index o reads input index o - (s - dim) / 2 on padded axes and
// o + (dim - s) / 2 on cropped ones; outside the input it is 0.
std::vector<double> Reference(const Shape& in, const Shape& out) {
  std::vector<double> ref(static_cast<size_t>(NumElements(out)));
  const size_t r = in.size();
  for (int64_t flat = 0; flat < NumElements(out); ++flat) {
    int64_t rem = flat, src = 0, stride = 1;
    bool inside = true;
    std::vector<int64_t> o(r);
    for (size_t d = r; d-- > 0;) {
      o[d] = rem % out[d];
      rem /= out[d];
    }
    for (size_t d = r; d-- > 0;) {
      const int64_t shift = in[d] >= out[d] ? (in[d] - out[d]) / 2 : -((out[d] - in[d]) / 2);
      const int64_t i = o[d] + shift;
      if (i < 0 || i >= in[d]) inside = false;
      src += i * stride;
      stride *= in[d];
    }
    ref[static_cast<size_t>(flat)] = inside ? static_cast<double>(src) : 0.0;
  }
  return ref;
}

TEST(CenterCropPadTest, CropAndPadOddSizesAllAxes) {
  const Shape in{7, 17, 33};
  const Shape out{1, 20, 30};
  OpCall c{"CenterCropPad", 18, {}, {Iota(in), MakeTensor(DType::kInt64, {3}, {1, 20, 30})}};
  Tensor y = testing::RunOne(c);
  ASSERT_EQ(y.shape(), out);
  EXPECT_EQ(Values(y), Reference(in, out));
}

TEST(CenterCropPadTest, NegativeAxesInt32ShapeLeaveOtherAxes) {
  const Shape in{3, 7, 17};
  OpCall c{"CenterCropPad", 18, {AttrInts("axes", {-1, 1})},
           {Iota(in), MakeTensor(DType::kInt32, {2}, {8, 10})}};
  Tensor y = testing::RunOne(c);
  ASSERT_EQ(y.shape(), Shape({3, 10, 8}));
  EXPECT_EQ(Values(y), Reference(in, {3, 10, 8}));
}

TEST(CenterCropPadTest, StringsPadWithEmpty) {
  Tensor x = Tensor::Empty(DType::kString, {3});
  for (int i = 0; i < 3; ++i) x.mutable_data<std::string>()[i] = std::string(1, char('a' + i));
  OpCall c{"CenterCropPad", 18, {}, {x, MakeTensor(DType::kInt64, {1}, {6})}};
  Tensor y = testing::RunOne(c);
  ASSERT_EQ(y.shape(), Shape({6}));
  const std::string* s = y.data<std::string>();
  EXPECT_EQ(std::vector<std::string>(s, s + 6), std::vector<std::string>({"", "a", "b", "c", "", ""}));
}

TEST(CenterCropPadTest, BadShapeInputNamesNodeAndInput) {
  OpCall c{"CenterCropPad", 18, {AttrInts("axes", {0})},
           {Iota({5, 5}), MakeTensor(DType::kInt64, {2}, {3, 3})}};
  auto r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("input 'shape' (1) has 2 values for 1 axes"), std::string::npos)
      << r.status().ToString();
  c.inputs[1] = Iota({1});
  c.attrs.clear();
  r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'shape' must be int32 or int64"), std::string::npos);
  c.inputs[1] = MakeTensor(DType::kInt64, {2}, {3, -1});
  EXPECT_FALSE(c.Run().ok());
  c.attrs = {AttrInts("axes", {0, 0})};
  c.inputs[1] = MakeTensor(DType::kInt64, {2}, {3, 3});
  EXPECT_FALSE(c.Run().ok());
}

}  // namespace
}  // namespace vt::ops
