// MatMulInteger-10 and QLinearMatMul-10/21 (ONNX Operators.md): numpy-matmul of 8-bit
// integer tensors with zero points, accumulated in int32. Reference implementation.
//   MatMulInteger: Y(int32) = (A - a_zero_point) @ (B - b_zero_point)
//     a_zero_point: scalar, [M] (per row of 2-D A) or A.shape[:-1] + [1];
//     b_zero_point: scalar, [N] (per column) or B.shape[:-2] + [1, N].
//   QLinearMatMul: Y = saturate(round(acc * a_scale * b_scale / y_scale) + y_zero_point) with
//     a_scale/a_zero_point per tensor or per row, b_scale/b_zero_point per tensor or per column.
//   QLinearMatMul-21 with float8 A / B / Y: the same in float64 over the decoded values, Y
//     rounded once to its float8 type (saturating, layout/minifloat.h).
#include <cmath>

#include "vtensor/layout/minifloat.h"

#include "ops/common/op_util.h"
#include "ops/quantize/quantize_util.h"

namespace vt::ops {
namespace {

// A matmul's shapes after numpy promotion: batch offsets into contiguous A [.., M, K] and
// B [.., K, N].
struct MatMulPlan {
  int64_t m = 1, k = 1, n = 1;
  Shape out_shape;
  std::vector<int64_t> a_off, b_off;  // element offsets per output batch
};

Expected<MatMulPlan> PlanMatMul(const Shape& a0, const Shape& b0) {
  if (a0.empty() || b0.empty()) return InvalidArgument("matmul inputs must have rank >= 1");
  Shape a = a0, b = b0;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  MatMulPlan p;
  p.m = a[a.size() - 2];
  p.k = a.back();
  p.n = b.back();
  if (b[b.size() - 2] != p.k)
    return InvalidArgument("matmul inner dimensions differ: " + ShapeToString(a0) + " @ " +
                           ShapeToString(b0));
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  VT_ASSIGN_OR_RETURN(Shape batch, BroadcastShapes(ab, bb));
  const auto as = BroadcastStrides(ab, batch), bs = BroadcastStrides(bb, batch);
  const int64_t nb = NumElements(batch);
  for (int64_t i = 0; i < nb; ++i) {
    int64_t rem = i, ao = 0, bo = 0;
    for (int d = static_cast<int>(batch.size()) - 1; d >= 0; --d) {
      const int64_t idx = rem % batch[static_cast<size_t>(d)];
      rem /= batch[static_cast<size_t>(d)];
      ao += idx * as[static_cast<size_t>(d)];
      bo += idx * bs[static_cast<size_t>(d)];
    }
    p.a_off.push_back(ao * p.m * p.k);
    p.b_off.push_back(bo * p.k * p.n);
  }
  p.out_shape = batch;
  if (!a_vec) p.out_shape.push_back(p.m);
  if (!b_vec) p.out_shape.push_back(p.n);
  return p;
}

// x - zero_point as int32, the zero point broadcast to x (a 1-D per-row zero point of a
// matrix-shaped A is first turned into a column, `per_row`).
Expected<std::vector<int32_t>> Centered(const Tensor& x, const Tensor* zp, bool per_row) {
  if (x.dtype() != DType::kUInt8 && x.dtype() != DType::kInt8)
    return Unimplemented(std::string("dtype ") + DTypeName(x.dtype()) + " not supported");
  std::vector<int32_t> v = ToInt32Vector(x);
  if (zp == nullptr) return v;
  if (zp->dtype() != x.dtype()) return InvalidArgument("zero point dtype differs from its input");
  if (zp->numel() == 1) {
    const int32_t z = static_cast<int32_t>(zp->GetInt64(0));
    for (auto& e : v) e -= z;
    return v;
  }
  Tensor z = *zp;
  if (per_row && z.rank() == 1 && x.rank() >= 2) {
    VT_ASSIGN_OR_RETURN(z, z.Reshape({z.dim(0), 1}));
  }
  auto bl = z.layout().BroadcastTo(x.shape());
  if (!bl.ok())
    return InvalidArgument("zero point shape " + ShapeToString(zp->shape()) +
                           " does not broadcast to " + ShapeToString(x.shape()));
  const std::vector<int32_t> zb = ToInt32Vector(z.WithLayout(*bl));
  for (size_t i = 0; i < v.size(); ++i) v[i] -= zb[i];
  return v;
}

// x - zero_point as float64 for float8 x (QLinearMatMul-21), the zero point broadcast as in
// Centered.
Expected<std::vector<double>> CenteredFloat8(const Tensor& x, const Tensor& zp, bool per_row) {
  if (zp.dtype() != x.dtype()) return InvalidArgument("zero point dtype differs from its input");
  std::vector<double> v(static_cast<size_t>(x.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = x.GetDouble(static_cast<int64_t>(i));
  Tensor z = zp;
  if (per_row && z.rank() == 1 && x.rank() >= 2 && z.numel() != 1) {
    VT_ASSIGN_OR_RETURN(z, z.Reshape({z.dim(0), 1}));
  }
  auto bl = z.layout().BroadcastTo(x.shape());
  if (!bl.ok())
    return InvalidArgument("zero point shape " + ShapeToString(zp.shape()) +
                           " does not broadcast to " + ShapeToString(x.shape()));
  const Tensor zb = z.WithLayout(*bl);
  for (size_t i = 0; i < v.size(); ++i) v[i] -= zb.GetDouble(static_cast<int64_t>(i));
  return v;
}

void GemmI32(const int32_t* a, const int32_t* b, int64_t m, int64_t k, int64_t n, int32_t* c) {
  for (int64_t i = 0; i < m; ++i) {
    int32_t* row = c + i * n;
    for (int64_t j = 0; j < n; ++j) row[j] = 0;
    for (int64_t p = 0; p < k; ++p) {
      const int32_t av = a[i * k + p];
      const int32_t* brow = b + p * n;
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) row[j] += av * brow[j];
    }
  }
}

// int32 accumulators of the integer matmul, laid out as the output.
Expected<std::vector<int32_t>> IntegerMatMul(const Tensor& a, const Tensor* azp, const Tensor& b,
                                             const Tensor* bzp, MatMulPlan* plan) {
  VT_ASSIGN_OR_RETURN(*plan, PlanMatMul(a.shape(), b.shape()));
  VT_ASSIGN_OR_RETURN(std::vector<int32_t> av, Centered(a, azp, true));
  VT_ASSIGN_OR_RETURN(std::vector<int32_t> bv, Centered(b, bzp, false));
  const int64_t mn = plan->m * plan->n;
  std::vector<int32_t> out(static_cast<size_t>(mn * static_cast<int64_t>(plan->a_off.size())));
  for (size_t i = 0; i < plan->a_off.size(); ++i)
    GemmI32(av.data() + plan->a_off[i], bv.data() + plan->b_off[i], plan->m, plan->k, plan->n,
            out.data() + static_cast<int64_t>(i) * mn);
  return out;
}

const Tensor* OptionalInput(const KernelContext& ctx, size_t i) {
  return ctx.has_input(i) && ctx.input_value(i)->is_tensor() ? &ctx.input(i) : nullptr;
}

Status MatMulIntegerCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor a, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor b, ctx.RequireTensor(1));
  MatMulPlan plan;
  auto acc = IntegerMatMul(a, OptionalInput(ctx, 2), b, OptionalInput(ctx, 3), &plan);
  if (!acc.ok()) return ctx.Annotate(acc.take_status());
  Tensor y = ctx.AllocOutput(0, DType::kInt32, plan.out_shape);
  std::copy(acc->begin(), acc->end(), y.mutable_data<int32_t>());
  return Status::Ok();
}

// Scale of row `i` (per-tensor when it has one element).
float ScaleAt(const std::vector<float>& s, int64_t i) {
  return s.size() == 1 ? s[0] : s[static_cast<size_t>(i)];
}

// QLinearMatMul-21 over float8 inputs: inputs as in QLinearMatMulCompute.
Status QLinearMatMulFloat8(KernelContext& ctx, const Tensor (&in)[8]) {
  const Tensor &a = in[0], &b = in[3], &y_zp = in[7];
  if (!IsFloat8DType(b.dtype()) || !IsFloat8DType(y_zp.dtype()))
    return ctx.Error(std::string("a is ") + DTypeName(a.dtype()) + ": b and y_zero_point must be "
                     "float8 too, got " + DTypeName(b.dtype()) + " and " + DTypeName(y_zp.dtype()));
  auto plan = PlanMatMul(a.shape(), b.shape());
  if (!plan.ok()) return ctx.Annotate(plan.take_status());
  auto av = CenteredFloat8(a.Contiguous(), in[2], true);
  if (!av.ok()) return ctx.Annotate(av.take_status().WithContext("a_zero_point"));
  auto bv = CenteredFloat8(b.Contiguous(), in[5], false);
  if (!bv.ok()) return ctx.Annotate(bv.take_status().WithContext("b_zero_point"));
  const std::vector<float> sa = ToFloatVector(in[1]), sb = ToFloatVector(in[4]),
                           sy = ToFloatVector(in[6]);
  if (sa.size() != 1 && static_cast<int64_t>(sa.size()) != plan->m)
    return ctx.Error("a_scale must be a scalar or have M elements");
  if (sb.size() != 1 && static_cast<int64_t>(sb.size()) != plan->n)
    return ctx.Error("b_scale must be a scalar or have N elements");
  if (sy.size() != 1 || y_zp.numel() != 1)
    return ctx.Error("y_scale and y_zero_point must be scalars");
  const float zy = static_cast<float>(y_zp.GetDouble(0));
  Tensor y = ctx.AllocOutput(0, y_zp.dtype(), plan->out_shape);
  auto* py = static_cast<uint8_t*>(y.raw_mutable_data());
  const int64_t m = plan->m, k = plan->k, n = plan->n;
  for (size_t bi = 0; bi < plan->a_off.size(); ++bi) {
    const double* pa = av->data() + plan->a_off[bi];
    const double* pb = bv->data() + plan->b_off[bi];
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += pa[i * k + p] * pb[p * n + j];
        const auto real = static_cast<float>(acc * ScaleAt(sa, i) * ScaleAt(sb, j));
        py[(static_cast<int64_t>(bi) * m + i) * n + j] =
            FloatToFloat8(y.dtype(), real / sy[0] + zy, /*saturate=*/true);
      }
  }
  return Status::Ok();
}

Status QLinearMatMulCompute(KernelContext& ctx) {
  Tensor in[8];
  for (size_t i = 0; i < 8; ++i) {
    VT_ASSIGN_OR_RETURN(in[i], ctx.RequireTensor(i));
  }
  const Tensor &a = in[0], &b = in[3], &y_zp = in[7];
  if (IsFloat8DType(a.dtype())) return QLinearMatMulFloat8(ctx, in);
  MatMulPlan plan;
  auto acc = IntegerMatMul(a, &in[2], b, &in[5], &plan);
  if (!acc.ok()) return ctx.Annotate(acc.take_status());
  const std::vector<float> sa = ToFloatVector(in[1]), sb = ToFloatVector(in[4]);
  const std::vector<float> sy = ToFloatVector(in[6]);
  if (sa.size() != 1 && static_cast<int64_t>(sa.size()) != plan.m)
    return ctx.Error("a_scale must be a scalar or have M elements");
  if (sb.size() != 1 && static_cast<int64_t>(sb.size()) != plan.n)
    return ctx.Error("b_scale must be a scalar or have N elements");
  if (sy.size() != 1 || y_zp.numel() != 1)
    return ctx.Error("y_scale and y_zero_point must be scalars");
  int64_t lo, hi;
  if (!QuantRange(y_zp.dtype(), &lo, &hi).ok() || y_zp.dtype() == DType::kInt32)
    return ctx.Unsupported(std::string("output dtype ") + DTypeName(y_zp.dtype()));
  const int64_t zy = y_zp.GetInt64(0);
  Tensor y = ctx.AllocOutput(0, y_zp.dtype(), plan.out_shape);
  Status st = DispatchElem<kSetInt>(y.dtype(), [&](auto tag) -> Status {
    using Q = decltype(tag);
    Q* py = y.mutable_data<Q>();
    const int64_t total = static_cast<int64_t>(acc->size());
    for (int64_t e = 0; e < total; ++e) {
      const int64_t j = e % plan.n, i = (e / plan.n) % plan.m;
      const float mult = ScaleAt(sa, i) * ScaleAt(sb, j) / sy[0];
      py[e] = static_cast<Q>(RoundSaturate(static_cast<float>((*acc)[e]) * mult, zy, lo, hi));
    }
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  return Status::Ok();
}

VT_REGISTER_OP("", "MatMulInteger", 10, kMaxOpset, MatMulIntegerCompute);
VT_REGISTER_OP("", "QLinearMatMul", 10, kMaxOpset, QLinearMatMulCompute);

}  // namespace
}  // namespace vt::ops
