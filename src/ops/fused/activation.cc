// ai.vtensor Activation (graph/fused_ops.h, docs/transformer-fusion.md): Y = act(X) * M with
// act from the "activation" attribute ("" none, Relu, Gelu, GeluTanh, Silu) and the optional
// multiplier M of X's shape (SwiGLU: act Silu, X the gate, M the up projection). f32 only;
// Y is a new contiguous tensor. Computed by the row-wise kernels (kernels/rowwise).
#include "kernels/cpu/flush_denormals.h"
#include "kernels/rowwise/rowwise_table.h"
#include "ops/fused/fused_act.h"
#include "ops/fused/fused_rows.h"
#include "vtensor/exec/kernel.h"
#include "vtensor/graph/fused_ops.h"

namespace vt::ops {
namespace {

Status ActivationCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  auto act = RowActFromName(ctx.node().GetString(kActivationAttr, ""));
  if (!act) return ctx.Error("unknown activation '" + ctx.node().GetString(kActivationAttr, "") + "'");
  Tensor m;
  if (ctx.has_input(1)) {
    VT_ASSIGN_OR_RETURN(m, ctx.RequireTensor(1));
    if (m.shape() != x.shape())
      return ctx.Error("M " + ShapeToString(m.shape()) + " must have X's shape " + ShapeToString(x.shape()));
  }
  if (x.dtype() != DType::kFloat32 || (m.defined() && m.dtype() != DType::kFloat32))
    return ctx.Unsupported("f32 only");
  Tensor y = ctx.AllocOutput(0, DType::kFloat32, x.shape());
  if (x.numel() == 0) return Status::Ok();
  const Tensor xc = x.Contiguous(), mc = m.defined() ? m.Contiguous() : Tensor();
  ApplyActivation(*act, xc.data<float>(), nullptr, mc.defined() ? mc.data<float>() : nullptr,
                  y.mutable_data<float>(), 1, x.numel(), ctx.threads());
  return Status::Ok();
}

VT_REGISTER_OP("ai.vtensor", "Activation", 1, kMaxOpset, ActivationCompute);

}  // namespace
}  // namespace vt::ops
