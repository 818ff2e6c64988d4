// com.microsoft GatedAdd-1 (docs/contrib-ops.md): output = X + round_T(Y * gate), X and Y of
// shape (..., C), gate (..., 1) broadcast over C. For float16 / bfloat16 the product is
// rounded to T before the add (the result of separate ONNX Mul and Add); float32 computes
// x + y * gate. Errors (node and input named): X of rank 0, Y not X's shape, gate not X's shape
// with the last dim 1, differing element types, an element type other than float32, float16,
// bfloat16.
#include <cmath>

#include "ops/contrib/contrib_inputs.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

Status CheckGate(const KernelContext& ctx, const Tensor& x, const Tensor& gate) {
  Shape want = x.shape();
  want.back() = 1;
  if (gate.shape() != want)
    return ctx.Error(InputLabel(2, "gate") + ": expected shape " + ShapeToString(want) + " (X's with the last dim 1), got " +
                     ShapeToString(gate.shape()));
  return Status::Ok();
}

template <typename S, typename Load, typename Store>
void GatedAddRows(KernelContext& ctx, const Tensor& x, const Tensor& y, const Tensor& gate, Tensor& out,
                  Load load, Store store) {
  const S* px = x.data<S>();
  const S* py = y.data<S>();
  const S* pg = gate.data<S>();
  S* po = out.mutable_data<S>();
  const int64_t c = x.shape().back(), rows = c > 0 ? x.numel() / c : 0;
  ParallelRows(rows, x.numel(), ctx.threads(), [&](int64_t r) {
    const float g = load(pg[r]);
    for (int64_t i = r * c; i < (r + 1) * c; ++i) po[i] = store(load(px[i]) + load(store(load(py[i]) * g)));
  });
}

Status GatedAddCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, RequiredInput(ctx, 0, "X"));
  VT_ASSIGN_OR_RETURN(Tensor y0, RequiredInput(ctx, 1, "Y"));
  VT_ASSIGN_OR_RETURN(Tensor g0, RequiredInput(ctx, 2, "gate"));
  const DType dt = x0.dtype();
  if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kBFloat16)
    return ctx.Unsupported(InputLabel(0, "X") + " has element type " + DTypeName(dt) +
                           "; the operator takes float32, float16 or bfloat16");
  if (x0.rank() == 0) return ctx.Error(InputLabel(0, "X") + " must have rank >= 1");
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, y0, dt, 1, "Y"));
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, g0, dt, 2, "gate"));
  if (y0.shape() != x0.shape())
    return ctx.Error(InputLabel(1, "Y") + ": expected X's shape " + ShapeToString(x0.shape()) + ", got " +
                     ShapeToString(y0.shape()));
  VT_RETURN_IF_ERROR(CheckGate(ctx, x0, g0));
  const Tensor x = x0.Contiguous(), y = y0.Contiguous(), g = g0.Contiguous();
  Tensor out = ctx.AllocOutput(0, dt, x.shape());
  if (dt == DType::kFloat32) {
    // Written as x + (y * g): the product rounds to f32 first, like the half types.
    GatedAddRows<float>(ctx, x, y, g, out, [](float v) { return v; }, [](float v) { return v; });
  } else if (dt == DType::kFloat16) {
    GatedAddRows<uint16_t>(ctx, x, y, g, out, HalfToFloat, FloatToHalf);
  } else {
    GatedAddRows<uint16_t>(ctx, x, y, g, out, BFloat16ToFloat, FloatToBFloat16);
  }
  return Status::Ok();
}

VT_REGISTER_OP("com.microsoft", "GatedAdd", 1, kMaxOpset, GatedAddCompute);

}  // namespace
}  // namespace vt::ops
