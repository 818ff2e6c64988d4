#include "vtensor/layout/nibble_pack.h"

#include <gtest/gtest.h>

#include <vector>

namespace vt {
namespace {

TEST(NibblePack, OddAndEvenCountsRoundTripLowNibbleFirst) {
  for (int64_t n : {1, 2, 7, 17, 33}) {
    std::vector<uint8_t> vals(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) vals[i] = static_cast<uint8_t>((i * 7 + 3) & 0xF);
    std::vector<uint8_t> packed(static_cast<size_t>((n + 1) / 2), 0xAA);
    PackNibbles(vals.data(), n, packed.data());
    EXPECT_EQ(packed[0] & 0xF, vals[0]);
    if (n % 2) {
      EXPECT_EQ(packed.back() >> 4, 0) << "odd count leaves the last high nibble 0";
    }
    std::vector<uint8_t> back(static_cast<size_t>(n));
    UnpackNibbles(DType::kUInt4, packed.data(), n, back.data());
    EXPECT_EQ(back, vals) << n;
  }
}

TEST(NibblePack, Int4SignExtends) {
  const int8_t vals[5] = {-8, 7, -1, 0, 3};
  uint8_t packed[3];
  PackNibbles(reinterpret_cast<const uint8_t*>(vals), 5, packed);
  EXPECT_EQ(packed[0], 0x78);
  EXPECT_EQ(packed[1], 0x0F);
  EXPECT_EQ(packed[2], 0x03);
  int8_t back[5];
  UnpackNibbles(DType::kInt4, packed, 5, reinterpret_cast<uint8_t*>(back));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(back[i], vals[i]) << i;
}

}  // namespace
}  // namespace vt
