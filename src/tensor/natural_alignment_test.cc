#include "vtensor/tensor/natural_alignment.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace vt {
namespace {

TEST(NaturalAlignmentTest, ElementTypes) {
  EXPECT_EQ(NaturalAlignment(DType::kFloat32), 4u);
  EXPECT_EQ(NaturalAlignment(DType::kInt64), 8u);
  EXPECT_EQ(NaturalAlignment(DType::kFloat16), 2u);
  EXPECT_EQ(NaturalAlignment(DType::kUInt8), 1u);
  EXPECT_EQ(NaturalAlignment(DType::kInt4), 1u);  // one value per byte in memory
  EXPECT_EQ(NaturalAlignment(DType::kComplex64), 4u);
  EXPECT_EQ(NaturalAlignment(DType::kComplex128), 8u);
}

TEST(NaturalAlignmentTest, MisalignedViewsAreCopiedAlignedOnesKept) {
  // Seven floats' bytes at offset 1 and at offset 4 of one buffer.
  std::vector<uint8_t> buf(64);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<uint8_t>(i * 7 + 1);
  auto odd = Tensor::Borrow(DType::kFloat32, {7}, buf.data() + 1, 28, nullptr);
  auto even = Tensor::Borrow(DType::kFloat32, {7}, buf.data() + 4, 28, nullptr);
  ASSERT_TRUE(odd.ok() && even.ok());
  odd->set_name("w");
  EXPECT_FALSE(IsNaturallyAligned(*odd));
  EXPECT_TRUE(IsNaturallyAligned(*even));
  const Tensor a = NaturallyAligned(*odd);
  EXPECT_NE(a.storage(), odd->storage());
  EXPECT_TRUE(IsNaturallyAligned(a));
  EXPECT_EQ(a.shape(), odd->shape());
  EXPECT_EQ(a.name(), "w");
  EXPECT_EQ(std::memcmp(a.raw_data(), buf.data() + 1, 28), 0);
  EXPECT_EQ(NaturallyAligned(*even).storage(), even->storage());
  // Bytes have no alignment to keep.
  auto bytes = Tensor::Borrow(DType::kUInt8, {5}, buf.data() + 3, 5, nullptr);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(NaturallyAligned(*bytes).storage(), bytes->storage());
  EXPECT_TRUE(IsNaturallyAligned(Tensor()));
}

}  // namespace
}  // namespace vt
