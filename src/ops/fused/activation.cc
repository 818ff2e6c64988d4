// ai.vtensor Activation (graph/fused_ops.h, docs/transformer-fusion.md): Y = act(X) * M with
// act from the "activation" attribute ("Gelu", "GeluTanh" or "Silu"; not empty) and the
// optional multiplier M of X's shape (SwiGLU: act Silu, X the gate, M the up projection). f32
// only; Y is a new contiguous tensor. Computed on the GELU kernel family (ops/fused/fused_act.h).
// Errors: an unknown or empty activation (at creation), M of another shape, other dtypes.
#include "ops/common/row_kernels.h"
#include "ops/fused/fused_act.h"
#include "vtensor/exec/kernel.h"
#include "vtensor/graph/fused_ops.h"

namespace vt::ops {
namespace {

class ActivationKernel final : public OpKernel {
 public:
  static Expected<std::unique_ptr<OpKernel>> Make(const KernelInit& init) {
    const std::string name = init.node.GetString(kActivationAttr, "");
    auto act = FusedActivationFromName(name);
    if (!act || act->none)
      return AnnotateNode(InvalidArgument("unknown activation '" + name + "'"), init.node);
    return std::unique_ptr<OpKernel>(new ActivationKernel(GeluRowFor(init), *act));
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
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
    ApplyActivation(row_, act_, xc.data<float>(), mc.defined() ? mc.data<float>() : nullptr,
                    y.mutable_data<float>(), x.numel(), ctx.threads());
    return Status::Ok();
  }

 private:
  ActivationKernel(const kernels::GeluKernel& row, FusedActivation act) : row_(row), act_(act) {}
  const kernels::GeluKernel& row_;
  FusedActivation act_;
};

VT_REGISTER_OP("ai.vtensor", "Activation", 1, kMaxOpset, KernelFactory(ActivationKernel::Make));

}  // namespace
}  // namespace vt::ops
