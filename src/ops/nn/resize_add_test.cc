// The fused Add of a Resize (graph/fused_attributes.h kResizeAddAttr, written by FuseResizeAdd):
// bit-identical to Resize then Add, written over the addend when it dies at the node, and the
// Add as written when the addend is not an f32 tensor of the resized shape.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ops/common/op_test_util.h"
#include "vtensor/graph/fused_attributes.h"

namespace vt::ops::testing {
namespace {

Tensor Wave(const Shape& shape, double phase) {
  std::vector<double> v(static_cast<size_t>(NumElements(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<double>(i) * 0.37 + phase) * 10;
  return F32(shape, v);
}

// A Resize-13 call on x with `scales` (roi and sizes absent) and `mode`.
OpCall ResizeCall(const Tensor& x, const std::vector<double>& scales, const std::string& mode) {
  return OpCall{"Resize", 13,
                {AttrString("mode", mode),
                 AttrString("coordinate_transformation_mode", mode == "nearest" ? "asymmetric" : "half_pixel"),
                 AttrString("nearest_mode", "floor")},
                {x, Value(), F32({static_cast<int64_t>(scales.size())}, scales)},
                {false, true, false}};
}

// The same call fused with `y`: inputs padded to 4, then y; kResizeAddAttr = 1.
OpCall Fused(OpCall c, const Value& y) {
  c.inputs.push_back(Value());
  c.absent.push_back(true);
  c.inputs.push_back(y);
  c.absent.push_back(false);
  c.attrs.push_back(AttrInt(kResizeAddAttr, 1));
  return c;
}

// Resize, then Add-13 of its result and y.
Tensor Unfused(const OpCall& resize, const Tensor& y) {
  const Tensor r = RunOne(resize);
  return RunOne(OpCall{"Add", 13, {}, {r, y}});
}

void ExpectBitIdentical(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  const Tensor g = got.Contiguous(), w = want.Contiguous();
  EXPECT_EQ(std::memcmp(g.raw_data(), w.raw_data(), static_cast<size_t>(w.nbytes())), 0);
}

// Every mode, integer and non-integer scales, up and down, the plane and separable paths.
TEST(ResizeAddOp, BitIdenticalToResizeThenAdd) {
  struct Case {
    Shape x;
    std::vector<double> scales;
    const char* mode;
  };
  const Case cases[] = {
      {{1, 3, 5, 7}, {1, 1, 2, 2}, "nearest"},  {{1, 3, 5, 7}, {1, 1, 1.5, 0.6}, "nearest"},
      {{2, 3, 5, 7}, {1, 1, 2, 2}, "linear"},   {{2, 3, 5, 7}, {1, 1, 1.7, 0.45}, "linear"},
      {{1, 2, 6, 5}, {1, 1, 2.5, 1.3}, "cubic"}, {{2, 4, 3, 3}, {1, 1.5, 2, 1}, "linear"},
      {{3, 8}, {2, 1.25}, "nearest"},           {{9}, {1.4}, "linear"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.mode) + " " + ShapeToString(c.x));
    const OpCall resize = ResizeCall(Wave(c.x, 0), c.scales, c.mode);
    const Shape out_shape = RunOne(resize).shape();
    const Tensor y = Wave(out_shape, 1);
    ExpectBitIdentical(RunOne(Fused(resize, y)), Unfused(resize, y));
  }
}

TEST(ResizeAddOp, IdentityResizeAddsTheInput) {
  const OpCall resize = ResizeCall(Wave({1, 2, 3, 4}, 0), {1, 1, 1, 1}, "nearest");
  const Tensor y = Wave({1, 2, 3, 4}, 1);
  ExpectBitIdentical(RunOne(Fused(resize, y)), Unfused(resize, y));
}

TEST(ResizeAddOp, UpsampleTakesTheAddendAtIndexTwo) {
  const Tensor x = Wave({1, 2, 3, 4}, 0), y = Wave({1, 2, 6, 8}, 1);
  const OpCall up{"Upsample", 9, {AttrString("mode", "nearest")}, {x, F32({4}, {1, 1, 2, 2})}};
  OpCall fused = up;
  fused.inputs.push_back(y);
  fused.attrs.push_back(AttrInt(kResizeAddAttr, 1));
  ExpectBitIdentical(RunOne(fused), Unfused(up, y));
}

// Runs `c` as a graph run would when its last input dies at the node (KernelContext last use).
Tensor RunWithDyingAddend(const OpCall& c) {
  Node node;
  node.name = "t";
  node.op_type = c.op;
  node.opset = c.opset;
  for (size_t i = 0; i < c.inputs.size(); ++i) node.inputs.push_back(c.absent[i] ? "" : "in" + std::to_string(i));
  node.outputs = {"out0"};
  for (const auto& a : c.attrs) node.attrs[a.name] = a;
  std::vector<const Value*> ins;
  for (size_t i = 0; i < c.inputs.size(); ++i) ins.push_back(c.absent[i] ? nullptr : &c.inputs[i]);
  std::vector<uint8_t> last;  // the last input dies here
  for (size_t i = 0; i < c.inputs.size(); ++i) last.push_back(i + 1 == c.inputs.size() ? 1 : 0);
  std::vector<Value> outs(1);
  Graph g;
  auto kernel = (*KernelRegistry::Global().Find("", c.op, c.opset))(KernelInit{node, g});
  EXPECT_TRUE(kernel.ok());
  KernelContext ctx(node, ins, &outs, nullptr, 2);
  ctx.set_last_uses(last.data());
  const Status st = (*kernel)->Compute(ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return st.ok() ? outs[0].tensor() : Tensor();
}

// The addend dies at the node: the output takes its buffer, each element read before written.
// The large shape splits rows / planes over two threads.
TEST(ResizeAddOp, WritesOverAnAddendThatDiesHere) {
  for (const Shape& in : {Shape{1, 3, 5, 7}, Shape{1, 4, 64, 96}}) {
    for (const char* mode : {"nearest", "linear", "cubic"}) {
      SCOPED_TRACE(std::string(mode) + " " + ShapeToString(in));
      const OpCall resize = ResizeCall(Wave(in, 0), {1, 1, 2, 1.5}, mode);
      const Shape out{in[0], in[1], in[2] * 2, in[3] * 3 / 2};
      const Tensor want = Unfused(resize, Wave(out, 1));
      OpCall fused = Fused(resize, Value(Wave(out, 1)));  // held by the call only
      const void* addend = fused.inputs.back().tensor().raw_data();
      const Tensor got = RunWithDyingAddend(fused);
      EXPECT_EQ(got.raw_data(), addend) << "the output is written over the addend";
      ExpectBitIdentical(got, want);
    }
  }
}

// The separable path (a channel axis resized too) finishes in a temporary before adding.
TEST(ResizeAddOp, SeparablePathWritesOverTheAddendToo) {
  const OpCall resize = ResizeCall(Wave({2, 4, 3, 3}, 0), {1, 1.5, 2, 1}, "linear");
  const Tensor want = Unfused(resize, Wave({2, 6, 6, 3}, 1));
  OpCall fused = Fused(resize, Value(Wave({2, 6, 6, 3}, 1)));
  const void* addend = fused.inputs.back().tensor().raw_data();
  const Tensor got = RunWithDyingAddend(fused);
  EXPECT_EQ(got.raw_data(), addend);
  ExpectBitIdentical(got, want);
}

// The addend is read later (no last use here): it is left as it was.
TEST(ResizeAddOp, AddendThatLivesOnIsNotWritten) {
  const OpCall resize = ResizeCall(Wave({1, 2, 4, 4}, 0), {1, 1, 2, 2}, "nearest");
  const Tensor y = Wave({1, 2, 8, 8}, 1);
  const Tensor y_copy = y.Clone();
  const Tensor got = RunOne(Fused(resize, y));
  EXPECT_NE(got.raw_data(), y.raw_data());
  ExpectBitIdentical(y, y_copy);
  ExpectBitIdentical(got, Unfused(resize, y));
}

// Not an f32 addend of the resized shape: the Add as written (broadcasting; its type errors).
TEST(ResizeAddOp, OtherAddendsRunTheAddAsWritten) {
  const OpCall resize = ResizeCall(Wave({1, 2, 4, 4}, 0), {1, 1, 2, 2}, "nearest");
  const Tensor bias = Wave({1, 2, 1, 1}, 1);
  ExpectBitIdentical(RunOne(Fused(resize, bias)), Unfused(resize, bias));
  const Tensor wide = Wave({3, 1, 8, 8}, 2);  // the addend widens the result
  ExpectBitIdentical(RunOne(Fused(resize, wide)), Unfused(resize, wide));

  const OpCall r64 = ResizeCall(MakeTensor(DType::kFloat64, {1, 1, 2, 2}, {1, 2, 3, 4}), {1, 1, 2, 2}, "linear");
  const Tensor y64 = MakeTensor(DType::kFloat64, {1, 1, 4, 4}, std::vector<double>(16, 0.5));
  ExpectBitIdentical(RunOne(Fused(r64, y64)), Unfused(r64, y64));

  auto mixed = Fused(resize, Value(MakeTensor(DType::kFloat64, {1, 2, 8, 8}, std::vector<double>(128, 1)))).Run();
  EXPECT_FALSE(mixed.ok()) << "Add refuses two element types";
  auto bad = Fused(resize, Value(Wave({1, 2, 7, 8}, 1))).Run();
  EXPECT_FALSE(bad.ok()) << "shapes that do not broadcast";
}

}  // namespace
}  // namespace vt::ops::testing
