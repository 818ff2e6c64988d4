// com.microsoft GatedRMSNorm-1 (docs/contrib-ops.md), the gated RMS norm of Mamba2 / gated
// DeltaNet attention outputs:
//   Y = X * rsqrt(mean(X^2) + epsilon) * scale * SiLU(gate)
// with the mean over each contiguous group of C elements, C = length of scale (X's last dim a
// multiple of C, so a packed [B, T, H * C] tensor normalises per head). Inputs X (..., H * C),
// scale [C], gate (X's shape); attribute epsilon (float, default 1e-5). All arithmetic in f32
// whatever the type (float32, float16, bfloat16; rounded once). Errors (node and input named):
// X of rank 0, scale not 1-D or not dividing X's last dim, gate not X's shape, differing
// element types.
#include <cmath>

#include "ops/common/f32_compute.h"
#include "ops/common/reduce_dtype.h"
#include "ops/contrib/contrib_inputs.h"
#include "ops/common/row_kernels.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

class GatedRmsNormKernel final : public OpKernel {
 public:
  explicit GatedRmsNormKernel(const KernelInit& init)
      : norm_(LayerNormRowFor(init)), gelu_(GeluRowFor(init)),
        epsilon_(init.node.GetFloat("epsilon", 1e-5f)) {}

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor x0, RequiredInput(ctx, 0, "X"));
    VT_ASSIGN_OR_RETURN(Tensor s0, RequiredInput(ctx, 1, "scale"));
    VT_ASSIGN_OR_RETURN(Tensor g0, RequiredInput(ctx, 2, "gate"));
    const DType dt = x0.dtype();
    if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kBFloat16)
      return ctx.Unsupported(InputLabel(0, "X") + " has element type " + DTypeName(dt) +
                             "; the operator takes float32, float16 or bfloat16");
    if (x0.rank() == 0) return ctx.Error(InputLabel(0, "X") + " must have rank >= 1");
    VT_RETURN_IF_ERROR(ExpectSameDType(ctx, s0, dt, 1, "scale"));
    VT_RETURN_IF_ERROR(ExpectSameDType(ctx, g0, dt, 2, "gate"));
    const int64_t c = s0.numel(), last = x0.shape().back();
    if (s0.rank() != 1 || c == 0 || last % c != 0)
      return ctx.Error(InputLabel(1, "scale") + ": expected a 1-D tensor whose length divides X's last dim " +
                       std::to_string(last) + ", got shape " + ShapeToString(s0.shape()));
    if (g0.shape() != x0.shape())
      return ctx.Error(InputLabel(2, "gate") + ": expected X's shape " + ShapeToString(x0.shape()) + ", got " +
                       ShapeToString(g0.shape()));
    if (!(epsilon_ >= 0)) return ctx.Error("attribute epsilon must be >= 0, got " + std::to_string(epsilon_));
    const Tensor x = AsF32(x0), s = AsF32(s0), g = AsF32(g0);
    Tensor y = AllocComputeOutput(ctx, 0, dt, x0.shape());
    const int64_t groups = x0.numel() / c;
    ParallelRows(groups, 16 * x0.numel(), ctx.threads(), [&](int64_t r) {
      kernels::LayerNormRow n;
      n.n = static_cast<size_t>(c);
      n.x = x.data<float>() + r * c;
      n.gamma = s.data<float>();
      n.y = y.mutable_data<float>() + r * c;
      n.epsilon = epsilon_;
      n.rms = true;
      float mean, inv;
      norm_.ukernel(n, &mean, &inv);
      kernels::GeluRow a;  // y *= SiLU(gate) = gate * sigmoid(gate)
      a.n = n.n;
      a.x = g.data<float>() + r * c;
      a.mul = n.y;
      a.y = n.y;
      a.kind = kernels::GeluKind::kSigmoid;
      a.alpha = 1.0f;
      gelu_.ukernel(a);
    });
    FinishOutput(ctx, 0, dt, y);
    return Status::Ok();
  }

 private:
  const kernels::LayerNormKernel& norm_;
  const kernels::GeluKernel& gelu_;
  float epsilon_;
};

Expected<std::unique_ptr<OpKernel>> MakeGatedRmsNorm(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new GatedRmsNormKernel(init));
}

VT_REGISTER_OP("com.microsoft", "GatedRMSNorm", 1, kMaxOpset, KernelFactory(MakeGatedRmsNorm));

}  // namespace
}  // namespace vt::ops
