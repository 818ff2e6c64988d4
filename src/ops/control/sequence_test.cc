// Sequence operators through their registered kernels: construction, positional insert /
// erase / lookup with negative positions, splitting and concatenation, and bad positions.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::F32;
using testing::I64;
using testing::Iota;
using testing::OpCall;
using testing::Values;

Value Seq(std::vector<Tensor> items) {
  DType dt = items.empty() ? DType::kFloat32 : items[0].dtype();
  return Value::Sequence(dt, std::move(items));
}

Expected<Value> Run1(const std::string& op, std::vector<Value> in, std::vector<Attribute> attrs = {},
                     std::vector<bool> absent = {}) {
  OpCall c{op, 17, std::move(attrs), std::move(in), std::move(absent)};
  VT_ASSIGN_OR_RETURN(auto outs, c.Run());
  return outs[0];
}

TEST(SequenceTest, ConstructInsertAtErase) {
  auto s = Run1("SequenceConstruct", {F32({1}, {1}), F32({2}, {2, 3})});
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->sequence().size(), 2u);
  // Insert at -1: before the last element.
  auto ins = Run1("SequenceInsert", {*s, F32({}, {9}), I64({}, {-1})});
  ASSERT_TRUE(ins.ok());
  ASSERT_EQ(ins->sequence().size(), 3u);
  EXPECT_EQ(Values(ins->sequence()[1]), std::vector<double>({9}));
  auto at = Run1("SequenceAt", {*ins, I64({}, {-1})});
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(Values(at->tensor()), std::vector<double>({2, 3}));
  auto er = Run1("SequenceErase", {*ins}, {}, {});
  ASSERT_TRUE(er.ok());
  EXPECT_EQ(er->sequence().size(), 2u);
  EXPECT_EQ(Values(er->sequence()[1]), std::vector<double>({9}));
  auto len = Run1("SequenceLength", {*er});
  ASSERT_TRUE(len.ok());
  EXPECT_EQ(Values(len->tensor()), std::vector<double>({2}));
}

TEST(SequenceTest, BadPositionsAreErrors) {
  Value s = Seq({F32({1}, {1})});
  EXPECT_FALSE(Run1("SequenceAt", {s, I64({}, {1})}).ok());
  EXPECT_FALSE(Run1("SequenceAt", {s, I64({}, {-2})}).ok());
  EXPECT_FALSE(Run1("SequenceInsert", {s, F32({}, {1}), I64({}, {2})}).ok());
  EXPECT_TRUE(Run1("SequenceInsert", {s, F32({}, {1}), I64({}, {1})}).ok());
  EXPECT_FALSE(Run1("SequenceErase", {Seq({}), I64({}, {0})}).ok());
  EXPECT_FALSE(Run1("SequenceAt", {F32({1}, {1}), I64({}, {0})}).ok());  // not a sequence
  EXPECT_FALSE(Run1("SequenceConstruct", {F32({1}, {1}), I64({1}, {1})}).ok());  // mixed dtypes
}

TEST(SequenceTest, EmptyHasRequestedType) {
  auto e = Run1("SequenceEmpty", {}, {AttrInt("dtype", 7)});
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->is_sequence());
  EXPECT_EQ(e->elem_type(), DType::kInt64);
  EXPECT_TRUE(e->sequence().empty());
}

TEST(SequenceTest, SplitToSequenceForms) {
  Tensor x = Iota({5, 2});
  auto ones = Run1("SplitToSequence", {x}, {AttrInt("keepdims", 0)});
  ASSERT_TRUE(ones.ok());
  ASSERT_EQ(ones->sequence().size(), 5u);
  EXPECT_EQ(ones->sequence()[4].shape(), Shape({2}));
  EXPECT_EQ(Values(ones->sequence()[4]), std::vector<double>({8, 9}));
  auto chunks = Run1("SplitToSequence", {x, I64({}, {2})});
  ASSERT_TRUE(chunks.ok());
  ASSERT_EQ(chunks->sequence().size(), 3u);
  EXPECT_EQ(chunks->sequence()[2].shape(), Shape({1, 2}));
  auto sizes = Run1("SplitToSequence", {x, I64({2}, {1, 1})}, {AttrInt("axis", -1)});
  ASSERT_TRUE(sizes.ok());
  EXPECT_EQ(Values(sizes->sequence()[1]), std::vector<double>({1, 3, 5, 7, 9}));
  EXPECT_FALSE(Run1("SplitToSequence", {x, I64({2}, {2, 2})}).ok());
  EXPECT_FALSE(Run1("SplitToSequence", {x, I64({}, {0})}).ok());
}

TEST(SequenceTest, ConcatFromSequence) {
  Value s = Seq({Iota({2, 2}), F32({2, 1}, {7, 8})});
  auto c = Run1("ConcatFromSequence", {s}, {AttrInt("axis", 1)});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->tensor().shape(), Shape({2, 3}));
  EXPECT_EQ(Values(c->tensor()), std::vector<double>({0, 1, 7, 2, 3, 8}));
  Value same = Seq({F32({2}, {1, 2}), F32({2}, {3, 4})});
  auto st = Run1("ConcatFromSequence", {same}, {AttrInt("axis", -1), AttrInt("new_axis", 1)});
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->tensor().shape(), Shape({2, 2}));
  EXPECT_EQ(Values(st->tensor()), std::vector<double>({1, 3, 2, 4}));
  EXPECT_FALSE(Run1("ConcatFromSequence", {s}, {AttrInt("axis", 0)}).ok());  // dims differ
  EXPECT_FALSE(Run1("ConcatFromSequence", {Seq({})}, {AttrInt("axis", 0)}).ok());
}

TEST(OptionalTest, WrapHasGet) {
  auto some = Run1("Optional", {F32({1}, {5})});
  ASSERT_TRUE(some.ok());
  auto has = Run1("OptionalHasElement", {*some});
  ASSERT_TRUE(has.ok());
  EXPECT_EQ(Values(has->tensor()), std::vector<double>({1}));
  auto none = Run1("OptionalHasElement", {Value::NoneOf(false, DType::kFloat32)});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(Values(none->tensor()), std::vector<double>({0}));
  auto got = Run1("OptionalGetElement", {*some});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(Values(got->tensor()), std::vector<double>({5}));
  EXPECT_FALSE(Run1("OptionalGetElement", {Value::NoneOf(true, DType::kFloat32)}).ok());
  // Optional without input needs the type attribute.
  EXPECT_FALSE(Run1("Optional", {Value()}, {}, {true}).ok());
}

}  // namespace
}  // namespace vt::ops
