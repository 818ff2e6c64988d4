// Hostile inputs for the shape/data-movement kernels: every call must return (OK or an
// error Status) without crashing or reading out of bounds. Run under ASan/UBSan to make the
// "no out-of-bounds" part meaningful.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/common/op_test_util.h"

namespace vt::ops::testing {
namespace {

constexpr double kBig = 9.2e18;  // near INT64_MAX once converted
constexpr double kHuge = 1e30;

std::vector<OpCall> HostileCalls() {
  const Tensor x = Iota({2, 3});
  const Tensor empty = Iota({0, 3});
  std::vector<OpCall> calls = {
      {"Reshape", 13, {}, {x, I64({2}, {kBig, kBig})}},
      {"Reshape", 13, {}, {x, I64({3}, {-1, 0, 0})}},
      {"Reshape", 13, {}, {empty, I64({2}, {-1, 0})}},
      {"Expand", 13, {}, {x, I64({3}, {kBig, 2, 3})}},
      {"Expand", 13, {}, {x, I64({3}, {1 << 20, 1 << 20, 3})}},
      {"Tile", 13, {}, {x, I64({2}, {kBig, 2})}},
      {"Tile", 13, {}, {x, I64({2}, {1 << 20, 1 << 20})}},
      {"Slice", 13, {}, {x, I64({1}, {-kBig}), I64({1}, {kBig}), I64({1}, {1}), I64({1}, {-kBig})}},
      {"Slice", 13, {}, {x, I64({1}, {kBig}), I64({1}, {-kBig}), I64({1}, {0}), I64({1}, {-kBig})}},
      {"Slice", 13, {}, {empty, I64({1}, {0}), I64({1}, {5}), I64({1}, {0}), I64({1}, {-1})}},
      {"Pad", 13, {}, {x, I64({4}, {kBig, 0, 0, 0})}},
      {"Pad", 13, {}, {x, I64({4}, {-kBig, 0, 0, 0})}},
      {"Pad", 13, {AttrString("mode", "reflect")}, {x, I64({4}, {0, 1000, 0, 1000})}},
      {"Pad", 13, {AttrString("mode", "edge")}, {empty, I64({4}, {1, 0, 1, 0})}},
      {"ConstantOfShape", 9, {}, {I64({3}, {1 << 30, 1 << 30, 1 << 30})}},
      {"ConstantOfShape", 9, {AttrTensor("value", F32({2}, {1, 2}))}, {I64({1}, {2})}},
      {"Range", 11, {}, {F32({}, {0}), F32({}, {kHuge}), F32({}, {1e-30})}},
      {"Range", 11, {}, {I64({}, {-kBig}), I64({}, {kBig}), I64({}, {1})}},
      {"Range", 11, {}, {F32({}, {0}), F32({}, {NAN}), F32({}, {1})}},
      {"OneHot", 11, {}, {I64({2}, {kBig, -kBig}), F32({}, {kHuge}), F32({2}, {0, 1})}},
      {"OneHot", 11, {}, {F32({2}, {NAN, kHuge}), F32({}, {3}), F32({2}, {0, 1})}},
      {"EyeLike", 9, {AttrInt("k", std::numeric_limits<int64_t>::max())}, {x}},
      {"EyeLike", 9, {AttrInt("k", std::numeric_limits<int64_t>::min())}, {x}},
      {"EyeLike", 9, {AttrInt("dtype", 12345)}, {x}},
      {"Trilu", 14, {}, {x, I64({}, {-kBig})}},
      {"Gather", 13, {AttrInt("axis", 7)}, {x, I64({1}, {0})}},
      {"Gather", 13, {}, {empty, I64({1}, {0})}},
      {"GatherElements", 13, {AttrInt("axis", -3)}, {x, I64({2, 3}, {0, 0, 0, 0, 0, 0})}},
      {"GatherND", 13, {AttrInt("batch_dims", -1)}, {x, I64({1, 1}, {0})}},
      {"GatherND", 13, {}, {x, I64({1, 2}, {-kBig, kBig})}},
      {"ScatterND", 13, {}, {x, I64({1, 2}, {kBig, 0}), F32({1}, {1})}},
      {"ScatterElements", 13, {AttrInt("axis", 1)}, {x, I64({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0}), F32({2, 4}, {})}},
      {"Split", 13, {AttrInt("axis", 5)}, {x}},
      {"Split", 13, {}, {x, I64({2}, {kBig, -kBig})}},
      {"Concat", 13, {AttrInt("axis", -9)}, {x, x}},
      {"Squeeze", 13, {}, {x, I64({2}, {-kBig, kBig})}},
      {"Unsqueeze", 13, {}, {x, I64({1}, {kBig})}},
      {"Flatten", 13, {AttrInt("axis", std::numeric_limits<int64_t>::min())}, {x}},
      {"Transpose", 13, {AttrInts("perm", {-100, 1})}, {x}},
      {"TopK", 11, {}, {x, I64({1}, {kBig})}},
      {"TopK", 11, {AttrInt("axis", 9)}, {x, I64({1}, {1})}},
      {"CumSum", 14, {}, {x, I64({}, {kBig})}},
      {"Compress", 11, {AttrInt("axis", 4)}, {x, MakeTensor(DType::kBool, {1}, {1})}},
      {"Unique", 11, {AttrInt("axis", -9)}, {x}},
      {"DepthToSpace", 13, {AttrInt("blocksize", std::numeric_limits<int64_t>::max())}, {Iota({1, 4, 1, 1})}},
      {"SpaceToDepth", 13, {AttrInt("blocksize", 0)}, {Iota({1, 4, 1, 1})}},
      {"ReverseSequence", 10, {}, {x, I64({3}, {-kBig, kBig, 0})}},
      {"Resize", 13, {}, {x, Tensor(), F32({2}, {kHuge, 1})}, {false, true}},
      {"Resize", 13, {}, {x, Tensor(), F32({2}, {1e-30f, 1})}, {false, true}},
      {"Resize", 13, {}, {x, Tensor(), F32({2}, {NAN, 1})}, {false, true}},
      {"Resize", 13, {}, {x, Tensor(), Tensor(), I64({2}, {kBig, 1})}, {false, true, true}},
      {"Resize", 18, {AttrInt("antialias", 1), AttrString("mode", "cubic")},
       {x, Tensor(), F32({2}, {1e-6f, 1e-6f})}, {false, true}},
      {"Resize", 13, {AttrString("coordinate_transformation_mode", "tf_crop_and_resize"), AttrString("mode", "linear")},
       {x, F32({4}, {-kHuge, 0, kHuge, 1}), F32({2}, {1e-20f, 1})}},
      {"Resize", 13, {AttrString("coordinate_transformation_mode", "tf_crop_and_resize")},
       {x, F32({4}, {NAN, 0, 1, 1}), F32({2}, {2, 2})}},
      {"GridSample", 16, {}, {Iota({1, 1, 2, 2}), F32({1, 1, 2, 2}, {kHuge, -kHuge, NAN, INFINITY})}},
      {"GridSample", 16, {AttrString("padding_mode", "reflection"), AttrString("mode", "bicubic")},
       {Iota({1, 1, 2, 2}), F32({1, 1, 2, 2}, {kHuge, -kHuge, 3e9, -7.5})}},
      {"GridSample", 16, {AttrString("padding_mode", "border"), AttrString("mode", "nearest")},
       {Iota({1, 1, 1, 1}), F32({1, 1, 2, 2}, {kHuge, -kHuge, 1e10, -1e10})}},
      {"Dropout", 13, {}, {x, F32({}, {NAN}), MakeTensor(DType::kBool, {}, {1})}},
      {"Shape", 15, {AttrInt("start", std::numeric_limits<int64_t>::min()), AttrInt("end", std::numeric_limits<int64_t>::max())}, {x}},
  };
  return calls;
}

TEST(ShapeOpsRobustness, HostileInputsNeverCrash) {
  for (const OpCall& c : HostileCalls()) {
    auto r = c.Run();
    if (r.ok()) {
      // Results must at least be readable end to end.
      for (const Value& v : *r)
        if (v.is_tensor() && v.tensor().defined() && v.tensor().dtype() != DType::kString)
          for (int64_t i = 0; i < std::min<int64_t>(v.tensor().numel(), 64); ++i) (void)v.tensor().GetDouble(i);
    }
    SUCCEED() << c.op << ": " << (r.ok() ? "ok" : r.status().ToString());
  }
}

TEST(ShapeOpsRobustness, ImplausibleSizesAreErrors) {
  const Tensor x = Iota({2, 3});
  EXPECT_FALSE((OpCall{"ConstantOfShape", 9, {}, {I64({3}, {1 << 30, 1 << 30, 1 << 30})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"Tile", 13, {}, {x, I64({2}, {1 << 20, 1 << 20})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"Pad", 13, {}, {x, I64({4}, {kBig, 0, 0, 0})}}.Run().ok()));
  EXPECT_FALSE((OpCall{"Resize", 13, {}, {x, Tensor(), F32({2}, {kHuge, 1})}, {false, true}}.Run().ok()));
}

}  // namespace
}  // namespace vt::ops::testing
