// Einsum against explicit loops: matmul, batch matmul, traces and diagonals, implicit output,
// ellipsis broadcasting, three operands, integer dtype and malformed equations.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

using testing::AttrString;
using testing::F32;
using testing::MakeTensor;
using testing::OpCall;
using testing::RunOne;
using testing::Values;

std::vector<double> Seq(int64_t n, double start = 1) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + static_cast<double>(i);
  return v;
}

Tensor Einsum(const std::string& eq, std::vector<Value> ins) {
  return RunOne(OpCall{"Einsum", 12, {AttrString("equation", eq)}, std::move(ins)});
}

TEST(Einsum, MatMulTransposeAndImplicitOutput) {
  Tensor a = F32({2, 3}, Seq(6)), b = F32({3, 4}, Seq(12));
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += (i * 3 + k + 1) * (k * 4 + j + 1);
      want.push_back(s);
    }
  EXPECT_EQ(Values(Einsum("ij,jk->ik", {a, b})), want);
  EXPECT_EQ(Values(Einsum("ij,jk", {a, b})), want);  // implicit: i, k alphabetical
  Tensor t = Einsum("ij->ji", {a});
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(Values(t), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  Tensor imp = Einsum("ba", {a});  // implicit output "ab" = transpose
  EXPECT_EQ(Values(imp), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(Values(Einsum("ij->", {a})), std::vector<double>{21});
  EXPECT_EQ(Values(Einsum("ij->j", {a})), (std::vector<double>{5, 7, 9}));
}

TEST(Einsum, TraceDiagonalAndBatchDiagonal) {
  Tensor m = F32({3, 3}, Seq(9));
  EXPECT_EQ(Values(Einsum("ii", {m})), std::vector<double>{15});
  EXPECT_EQ(Values(Einsum("ii->i", {m})), (std::vector<double>{1, 5, 9}));
  Tensor bm = F32({2, 2, 2}, Seq(8));
  EXPECT_EQ(Values(Einsum("...ii->...i", {bm})), (std::vector<double>{1, 4, 5, 8}));
}

TEST(Einsum, BatchMatMulEllipsisBroadcastAndThreeOperands) {
  Tensor a = F32({2, 1, 2}, Seq(4)), b = F32({3, 2, 1}, Seq(6));
  // Broadcast ellipsis: [2,1] x [3] -> [2,3] batch of 1x1 products.
  Tensor y = Einsum("...ij,...jk->...ik", {F32({2, 1, 1, 2}, Seq(4)), F32({3, 2, 1}, Seq(6))});
  EXPECT_EQ(y.shape(), (Shape{2, 3, 1, 1}));
  EXPECT_EQ(Values(y), (std::vector<double>{5, 11, 17, 11, 25, 39}));
  Tensor v = F32({2}, {1, 2}), w = F32({2}, {3, 4});
  EXPECT_EQ(Values(Einsum("i,i", {v, w})), std::vector<double>{11});
  EXPECT_EQ(Values(Einsum("i,j->ij", {v, w})), (std::vector<double>{3, 4, 6, 8}));
  Tensor m = F32({2, 2}, {1, 0, 0, 1});
  EXPECT_EQ(Values(Einsum("i,ij,j->", {v, m, w})), std::vector<double>{11});
  (void)a;
  (void)b;
}

TEST(Einsum, IntegerDoubleAndErrors) {
  Tensor a = MakeTensor(DType::kInt64, {2, 2}, {1, 2, 3, 4});
  Tensor y = Einsum("ij,jk->ik", {a, a});
  EXPECT_EQ(y.dtype(), DType::kInt64);
  EXPECT_EQ(Values(y), (std::vector<double>{7, 10, 15, 22}));
  Tensor d = MakeTensor(DType::kFloat64, {2}, {0.5, 0.25});
  EXPECT_EQ(Values(Einsum("i->", {d})), std::vector<double>{0.75});
  auto bad = [&](const std::string& eq, std::vector<Value> ins) {
    return OpCall{"Einsum", 12, {AttrString("equation", eq)}, std::move(ins)}.Run().ok();
  };
  Tensor f = F32({2, 3}, Seq(6));
  EXPECT_FALSE(bad("ij,jk->ik", {f, f}));          // 3 vs 2
  EXPECT_FALSE(bad("ijk->i", {f}));                // rank mismatch
  EXPECT_FALSE(bad("ij->k", {f}));                 // unknown output label
  EXPECT_FALSE(bad("ij->ii", {f}));                // repeated output label
  EXPECT_FALSE(bad("i.j->i", {f}));                // malformed ellipsis
  EXPECT_FALSE(bad("ij,ij->ij", {f}));             // operand count
  EXPECT_FALSE(bad("ii->i", {f}));                 // diagonal of unequal dims
}

}  // namespace
}  // namespace vt::ops
