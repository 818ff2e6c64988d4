#include "ops/elementwise/binary_broadcast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::OpCall;

Tensor Seq(const Shape& shape, float start = 0, float step = 1) {
  Tensor t = Tensor::Empty(DType::kFloat32, shape);
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = start + step * static_cast<float>(i);
  return t;
}

// Reference: out[i] = a[ia] + 1000 * b[ib] with explicit numpy index arithmetic.
std::vector<float> NaiveAdd(const Tensor& a, const Tensor& b, float scale_b) {
  auto out = BroadcastShapes(a.shape(), b.shape());
  EXPECT_TRUE(out.ok());
  const Shape& os = *out;
  const size_t r = os.size();
  std::vector<float> res(static_cast<size_t>(NumElements(os)));
  std::vector<int64_t> idx(r, 0);
  for (size_t flat = 0; flat < res.size(); ++flat) {
    int64_t rem = static_cast<int64_t>(flat);
    for (size_t d = r; d-- > 0;) {
      idx[d] = rem % os[d];
      rem /= os[d];
    }
    auto at = [&](const Tensor& t) {
      std::vector<int64_t> ti(static_cast<size_t>(t.rank()));
      for (int d = 0; d < t.rank(); ++d) {
        const size_t od = r - static_cast<size_t>(t.rank()) + static_cast<size_t>(d);
        ti[static_cast<size_t>(d)] = t.dim(d) == 1 ? 0 : idx[od];
      }
      return t.storage() ? reinterpret_cast<const float*>(
                               t.storage()->data())[t.layout().ElementIndex(ti.data())]
                         : 0.0f;
    };
    res[flat] = at(a) + scale_b * at(b);
  }
  return res;
}

void ExpectAddMatches(const Tensor& a, const Tensor& b, int threads = 1) {
  auto out_shape = BroadcastShapes(a.shape(), b.shape());
  ASSERT_TRUE(out_shape.ok());
  Tensor out = Tensor::Empty(DType::kFloat32, *out_shape);
  ASSERT_TRUE((ZipTensors<float, float, float>(a, b, out, threads, [](float x, float y) {
                return x + 1000 * y;
              })).ok());
  std::vector<float> want = NaiveAdd(a, b, 1000);
  ASSERT_EQ(static_cast<size_t>(out.numel()), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(out.data<float>()[i], want[i])
        << "at " << i << " a=" << ShapeToString(a.shape()) << " b=" << ShapeToString(b.shape());
}

TEST(BroadcastPlan, SameShapeCollapsesToOneRow) {
  Layout a = Layout::Contiguous({2, 3, 4});
  auto p = MakeBroadcastPlan({2, 3, 4}, {&a, &a});
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->dims, (std::vector<int64_t>{24}));
  EXPECT_EQ(p->stride(0, 0), 1);
  EXPECT_EQ(p->stride(0, 1), 1);
}

TEST(BroadcastPlan, ChannelVectorOverNchwBecomesScalarRows) {
  Layout x = Layout::Contiguous({2, 3, 4, 5});
  Layout c = Layout::Contiguous({3, 1, 1});
  auto p = MakeBroadcastPlan({2, 3, 4, 5}, {&x, &c});
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->dims, (std::vector<int64_t>{2, 3, 20}));
  EXPECT_EQ(p->stride(2, 0), 1);
  EXPECT_EQ(p->stride(2, 1), 0);  // inner loop: contiguous x, broadcast scalar per row
  EXPECT_EQ(p->stride(1, 1), 1);
  EXPECT_EQ(p->stride(0, 1), 0);
  // [N,C,1,1] merges N and C.
  Layout nc = Layout::Contiguous({2, 3, 1, 1});
  auto q = MakeBroadcastPlan({2, 3, 4, 5}, {&x, &nc});
  ASSERT_TRUE(q.ok());
  ASSERT_EQ(q->dims, (std::vector<int64_t>{6, 20}));
}

TEST(BroadcastPlan, RankZeroAndErrors) {
  Layout s = Layout::Contiguous({});
  auto p = MakeBroadcastPlan({}, {&s});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->dims, (std::vector<int64_t>{1}));
  Layout bad = Layout::Contiguous({3});
  EXPECT_FALSE(MakeBroadcastPlan({4}, {&bad}).ok());
  Layout big = Layout::Contiguous({2, 4});
  EXPECT_FALSE(MakeBroadcastPlan({4}, {&big}).ok());
}

TEST(ZipTensors, MatchesNaiveBroadcastOnManyShapes) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{}, {}},
      {{5}, {}},
      {{}, {5}},
      {{2, 3}, {3}},
      {{2, 3}, {2, 1}},
      {{2, 1}, {1, 3}},
      {{1}, {4, 1, 3}},
      {{2, 3, 4, 5}, {3, 1, 1}},
      {{2, 3, 4, 5}, {1, 3, 1, 1}},
      {{2, 3, 4, 5}, {2, 3, 1, 1}},
      {{2, 3, 4, 5}, {5}},
      {{2, 3, 4, 5}, {4, 1}},
      {{7, 1, 17}, {1, 33, 1}},
      {{1, 1, 1}, {1}},
      {{3, 0, 2}, {1, 2}},
      {{257}, {257}},
      {{6, 1, 1, 2}, {1, 7, 3, 1}},
  };
  for (const auto& [sa, sb] : cases) {
    ExpectAddMatches(Seq(sa, 1, 1), Seq(sb, 0.5f, 0.25f));
    ExpectAddMatches(Seq(sb, 1, 1), Seq(sa, 0.5f, 0.25f));
  }
}

TEST(ZipTensors, StridedViewsAndThreads) {
  // Transposed view of a [4,6] tensor: strides (1, 6).
  Tensor base = Seq({6, 4});
  auto tl = base.layout().Transpose({1, 0});
  ASSERT_TRUE(tl.ok());
  Tensor t = base.WithLayout(*tl);
  ExpectAddMatches(t, Seq({6}));
  ExpectAddMatches(t, Seq({4, 1}));
  ExpectAddMatches(t, t);
  // Reversed slice (negative stride).
  auto rl = Layout::Strided({5}, {-1}, 4);
  ASSERT_TRUE(rl.ok());
  ExpectAddMatches(Seq({5}).WithLayout(*rl), Seq({3, 1}));
  // Large enough for the parallel, row-splitting path (inner > kRowChunk, several threads).
  ExpectAddMatches(Seq({3, 40000}, 0, 1e-3f), Seq({3, 1}), 3);
  ExpectAddMatches(Seq({2, 3, 130, 200}, 0, 1e-3f), Seq({3, 1, 1}), 4);
  ExpectAddMatches(Seq({100000}, 0, 1e-3f), Seq({}), 2);
  ExpectAddMatches(Seq({300, 1, 300}, 0, 1e-3f), Seq({1, 7, 300}), 3);
}

TEST(AddKernel, ErrorsNameTheNode) {
  OpCall c{"Add", 14, {}, {Seq({3}), Seq({4})}};
  auto r = c.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'t'"), std::string::npos) << r.status().message();
  OpCall mixed{"Add", 14, {}, {Seq({3}), testing::I64({3}, {1, 2, 3})}};
  EXPECT_FALSE(mixed.Run().ok());
  OpCall str{
      "Add", 14, {}, {Tensor::Empty(DType::kString, {2}), Tensor::Empty(DType::kString, {2})}};
  auto rs = str.Run();
  ASSERT_FALSE(rs.ok());
  EXPECT_EQ(rs.status().code(), StatusCode::kUnimplemented);
}

TEST(AddKernel, LegacyAxisBroadcast) {
  // Add-6 with broadcast=1, axis=1: B [3] sits on A's dim 1.
  OpCall c{"Add",
           6,
           {testing::AttrInt("broadcast", 1), testing::AttrInt("axis", 1)},
           {Seq({2, 3, 2}), Seq({3}, 100, 100)}};
  Tensor y = testing::RunOne(c);
  ASSERT_EQ(y.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(testing::Values(y),
            (std::vector<double>{100, 101, 202, 203, 304, 305, 106, 107, 208, 209, 310, 311}));
  OpCall bad{"Add",
             6,
             {testing::AttrInt("broadcast", 1), testing::AttrInt("axis", 2)},
             {Seq({2, 3, 2}), Seq({3, 1})}};
  EXPECT_FALSE(bad.Run().ok());
}

TEST(ArithKernel, IntegerEdgeCasesDoNotTrap) {
  auto i32 = [](std::vector<int32_t> v) {
    Tensor t = Tensor::Empty(DType::kInt32, {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i) t.mutable_data<int32_t>()[i] = v[i];
    return t;
  };
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  Tensor d = testing::RunOne({"Div", 14, {}, {i32({7, -7, kMin, 5}), i32({2, 2, -1, 0})}});
  EXPECT_EQ(testing::Values(d), (std::vector<double>{3, -3, static_cast<double>(kMin), 0}));
  Tensor a =
      testing::RunOne({"Add", 14, {}, {i32({std::numeric_limits<int32_t>::max()}), i32({1})}});
  EXPECT_EQ(a.data<int32_t>()[0], kMin);
}

TEST(ArithKernel, Float16RoundsToNearestEven) {
  // 1 + 2^-11 is exactly halfway between 1 and the next half (1 + 2^-10): ties go to 1.
  Tensor one = Tensor::Empty(DType::kFloat16, {2});
  one.mutable_data<uint16_t>()[0] = FloatToHalf(1.0f);
  one.mutable_data<uint16_t>()[1] = FloatToHalf(1.0f + 1.0f / 512);  // odd mantissa 0x3C02
  Tensor eps = Tensor::Empty(DType::kFloat16, {});
  eps.mutable_data<uint16_t>()[0] = FloatToHalf(1.0f / 2048);
  Tensor y = testing::RunOne({"Add", 14, {}, {one, eps}});
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  EXPECT_EQ(y.data<uint16_t>()[0], 0x3C00);  // 1.0
  EXPECT_EQ(y.data<uint16_t>()[1], 0x3C02);  // 1 + 2^-9 (+ 2^-11 rounds to even 0x3C02)
  Tensor b = Tensor::Empty(DType::kBFloat16, {1});
  b.mutable_data<uint16_t>()[0] = FloatToBFloat16(1.0f);
  Tensor be = Tensor::Empty(DType::kBFloat16, {1});
  be.mutable_data<uint16_t>()[0] = FloatToBFloat16(1.0f / 256);  // half a bf16 ulp at 1.0
  Tensor yb = testing::RunOne({"Add", 14, {}, {b, be}});
  EXPECT_EQ(yb.data<uint16_t>()[0], 0x3F80);  // tie -> even (1.0)
}

}  // namespace
}  // namespace vt::ops

namespace vt::ops {
namespace {

// The AVX2 row clones must give the same bits as the portable loops.
TEST(ZipTensors, Avx2ClonesMatchGenericBitForBit) {
  const int64_t n = 1037;  // odd: exercises vector bodies and scalar tails
  Tensor x = Tensor::Empty(DType::kFloat32, {n});
  for (int64_t i = 0; i < n; ++i)
    x.mutable_data<float>()[i] = std::sin(static_cast<float>(i) * 0.37f) * 30.0f - 1.0f;
  x.mutable_data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  x.mutable_data<float>()[6] = -std::numeric_limits<float>::infinity();
  x.mutable_data<float>()[7] = -0.0f;
  Tensor c = testing::F32({}, {0.75});
  const std::vector<testing::OpCall> calls = {
      {"Sigmoid", 13, {}, {x}},
      {"Tanh", 13, {}, {x}},
      {"HardSwish", 14, {}, {x}},
      {"Elu", 6, {}, {x}},
      {"Sqrt", 13, {}, {x}},
      {"Relu", 14, {}, {x}},
      {"Add", 14, {}, {x, x}},
      {"Div", 14, {}, {c, x}},
      {"Mul", 14, {}, {x, c}},
      {"Pow", 15, {}, {x, c}},
      {"Clip", 13, {}, {x, testing::F32({}, {-1}), c}},
  };
  for (const auto& call : calls) {
    SetElementwiseAvx2ForTesting(false);
    Tensor generic = testing::RunOne(call);
    SetElementwiseAvx2ForTesting(true);
    Tensor fast = testing::RunOne(call);
    ASSERT_EQ(generic.numel(), fast.numel());
    EXPECT_EQ(std::memcmp(generic.data<float>(), fast.data<float>(), generic.nbytes()), 0)
        << call.op;
  }
}

}  // namespace
}  // namespace vt::ops

namespace vt::ops {
namespace {

// Every elementwise kernel answers bad inputs with a Status naming the node, never a crash.
TEST(ElementwiseKernels, RejectBadInputsWithStatus) {
  const std::vector<std::string> ops = {
      "Abs",         "Neg",        "Reciprocal",   "Sqrt",         "Exp",       "Log",
      "Floor",       "Ceil",       "Round",        "Sign",         "Erf",       "Sin",
      "Cos",         "Tan",        "Asin",         "Acos",         "Atan",      "Sinh",
      "Cosh",        "Asinh",      "Acosh",        "Atanh",        "Not",       "IsNaN",
      "IsInf",       "BitwiseNot", "Relu",         "LeakyRelu",    "PRelu",     "Elu",
      "Selu",        "Celu",       "Sigmoid",      "HardSigmoid",  "HardSwish", "Softplus",
      "Softsign",    "ThresholdedRelu", "Shrink",  "Tanh",         "Mish",      "Gelu",
      "Add",         "Sub",        "Mul",          "Div",          "Pow",       "Mod",
      "BitShift",    "BitwiseAnd", "BitwiseOr",    "BitwiseXor",   "Equal",     "Greater",
      "Less",        "GreaterOrEqual", "LessOrEqual", "And",       "Or",        "Xor",
      "Min",         "Max",        "Sum",          "Mean",         "Where",     "Clip",
      "Cast",        "CastLike",
  };
  Tensor str = Tensor::Empty(DType::kString, {2});
  Tensor f3 = Seq({3});
  Tensor f4 = Seq({4});
  Tensor cplx = Tensor::Empty(DType::kComplex64, {2});
  std::memset(cplx.raw_mutable_data(), 0, cplx.nbytes());
  const std::vector<std::vector<Value>> bad_inputs = {
      {},                                // missing everything
      {Value()},                         // empty optional where a tensor is required
      {Value::Sequence(DType::kFloat32, {f3})},
      {str, str, str},                   // strings (valid only for Equal/Cast/Where branches)
      {cplx, cplx, cplx},                // complex: unsupported everywhere
      {f3, f4, f3},                      // incompatible shapes
      {f3, testing::I64({3}, {1, 2, 3}), f3},  // mixed dtypes
  };
  int checked = 0;
  for (const std::string& op : ops) {
    const KernelFactory* f = KernelRegistry::Global().Find("", op, 20);
    ASSERT_NE(f, nullptr) << op;
    for (size_t k = 0; k < bad_inputs.size(); ++k) {
      std::vector<Attribute> attrs;
      if (op == "Cast") attrs.push_back(testing::AttrInt("to", 1));
      if (op == "BitShift") attrs.push_back(testing::AttrString("direction", "LEFT"));
      testing::OpCall call{op, 20, attrs, bad_inputs[k]};
      auto r = call.Run();
      // Strings are valid for Equal (k=3) and Where's X/Y; string -> float Cast of "" fails.
      if (r.ok()) continue;
      EXPECT_NE(r.status().message().find("'t'"), std::string::npos)
          << op << " case " << k << ": " << r.status().message();
      ++checked;
    }
  }
  EXPECT_GT(checked, 300);
}

}  // namespace
}  // namespace vt::ops
