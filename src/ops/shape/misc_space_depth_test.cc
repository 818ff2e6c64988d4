#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

TEST(DepthToSpaceOp, DcrAndCrdMatchDefinition) {
  const int64_t n = 1, c = 8, h = 2, w = 3, b = 2, oc = 2;
  Tensor x = Iota({n, c, h, w});
  for (const std::string mode : {"DCR", "CRD"}) {
    OpCall op{"DepthToSpace", 13, {AttrInt("blocksize", b), AttrString("mode", mode)}, {x}};
    Tensor y = RunOne(op);
    ASSERT_EQ(y.shape(), (Shape{n, oc, h * b, w * b}));
    for (int64_t co = 0; co < oc; ++co)
      for (int64_t yy = 0; yy < h * b; ++yy)
        for (int64_t xx = 0; xx < w * b; ++xx) {
          const int64_t by = yy % b, bx = xx % b;
          const int64_t ci = mode == "DCR" ? (by * b + bx) * oc + co : co * b * b + by * b + bx;
          const int64_t src = (ci * h + yy / b) * w + xx / b;  // Iota: the value is its index
          EXPECT_EQ(y.GetDouble((co * h * b + yy) * w * b + xx), static_cast<double>(src)) << mode;
        }
  }
}

TEST(SpaceToDepthOp, InvertsDcrDepthToSpace) {
  Tensor x = Iota({2, 3, 4, 6});
  OpCall s2d{"SpaceToDepth", 13, {AttrInt("blocksize", 2)}, {x}};
  Tensor y = RunOne(s2d);
  EXPECT_EQ(y.shape(), (Shape{2, 12, 2, 3}));
  OpCall d2s{"DepthToSpace", 13, {AttrInt("blocksize", 2)}, {y}};
  EXPECT_EQ(Values(RunOne(d2s)), Values(x));
}

TEST(SpaceDepthOps, Errors) {
  OpCall notdiv{"SpaceToDepth", 13, {AttrInt("blocksize", 3)}, {Iota({1, 1, 4, 4})}};
  EXPECT_FALSE(notdiv.Run().ok());
  OpCall chans{"DepthToSpace", 13, {AttrInt("blocksize", 2)}, {Iota({1, 3, 2, 2})}};
  EXPECT_FALSE(chans.Run().ok());
  OpCall rank{"DepthToSpace", 13, {AttrInt("blocksize", 1)}, {Iota({4, 2, 2})}};
  EXPECT_FALSE(rank.Run().ok());
  OpCall noblock{"DepthToSpace", 13, {}, {Iota({1, 4, 2, 2})}};
  EXPECT_FALSE(noblock.Run().ok());
}

}  // namespace
}  // namespace vt::ops::testing
