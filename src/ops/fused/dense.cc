// ai.vtensor Dense (graph/fused_ops.h, docs/transformer-fusion.md): Y = act(X @ W + B) * M.
// X: f32 [..., K]; W: a constant f32 [K, N], prepacked once like MatMul's constant B (the
// weight provider's form, or a compiled entry); B: f32 [N] (optional), added in the GEMM's
// epilogue; M: f32 of Y's shape (optional, only with an activation); act from the
// "activation" attribute ("", "Gelu", "GeluTanh", "Silu"), computed on the GELU kernel family
// (ops/fused/fused_act.h). Y [..., N] is a new contiguous tensor. The activation (and M) is
// applied to each block of rows right after the GEMM wrote it, while the block is in cache.
#include <memory>
#include <optional>

#include "kernels/gemm/f32_gemm.h"
#include "ops/common/f32_compute.h"
#include "ops/common/row_kernels.h"
#include "ops/fused/fused_act.h"
#include "vtensor/exec/kernel.h"
#include "vtensor/forms/weight_provider.h"
#include "vtensor/graph/fused_ops.h"

namespace vt::ops {
namespace {

using kernels::F32GemmA;
using kernels::F32GemmB;

// Rows of X per GEMM + activation step: the block's output stays in L2 for the activation.
constexpr int64_t kRowBlock = 64;

class DenseKernel final : public OpKernel {
 public:
  static Expected<std::unique_ptr<OpKernel>> Make(const KernelInit& init) {
    const Node& node = init.node;
    auto k = std::unique_ptr<DenseKernel>(new DenseKernel());
    auto act = FusedActivationFromName(node.GetString(kActivationAttr, ""));
    if (!act)
      return AnnotateNode(
          InvalidArgument("unknown activation '" + node.GetString(kActivationAttr, "") + "'"),
          node);
    if (act->none && node.inputs.size() > 3 && !node.inputs[3].empty())
      return AnnotateNode(InvalidArgument("M needs an activation"), node);
    k->act_ = *act;
    k->act_row_ = &GeluRowFor(init);
    const Tensor* w = node.inputs.size() > 1 ? init.FindInitializer(node.inputs[1]) : nullptr;
    if (w == nullptr || w->dtype() != DType::kFloat32 || w->rank() != 2)
      return AnnotateNode(InvalidArgument("W must be a constant f32 [K, N]"), node);
    k->k_ = w->dim(0);
    k->n_ = w->dim(1);
    const size_t K = static_cast<size_t>(k->k_), N = static_cast<size_t>(k->n_);
    WeightUseInfo use{WeightUse::kMatMulB};
    use.lossless_only = true;  // the f32 GEMM below is Dense's only path
    auto pw = init.weights().Prepare(node, node.inputs[1], *w, use);
    if (pw.ok() && pw->has_value() && (*pw)->form.kind == WeightFormKind::kF32GemmBPanels) {
      const PreparedWeight& p = **pw;
      k->panels_ = kernels::BorrowF32Panels(static_cast<size_t>(p.form.panel), K, N,
                                            reinterpret_cast<const float*>(p.bytes.data),
                                            p.bytes.keep_alive);
      k->isa_ = p.form.isa;
    } else {
      // No panel form offered or packed: Dense packs f32 panels of its own, for the session's
      // level (not cached).
      const kernels::F32GemmKernel& gemm = F32GemmRowFor(init);
      if (&gemm != &kernels::DefaultF32GemmKernel()) k->isa_ = init.weights().isa();
      const Tensor wc = w->Contiguous();
      k->panels_ = kernels::MakeF32PanelsFromKn(gemm.nr, K, N, wc.data<float>(), N);
    }
    return std::unique_ptr<OpKernel>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
    if (x0.dtype() != DType::kFloat32) return ctx.Unsupported("X must be f32");
    if (x0.rank() < 1 || x0.dim(x0.rank() - 1) != k_)
      return ctx.Error("X " + ShapeToString(x0.shape()) + " must end in K = " + std::to_string(k_));
    Shape out = x0.shape();
    out.back() = n_;
    Tensor bias, mul;
    if (ctx.has_input(2)) {
      VT_ASSIGN_OR_RETURN(bias, ctx.RequireTensor(2));
      if (bias.dtype() != DType::kFloat32 || bias.numel() != n_)
        return ctx.Error("B must be f32 with N = " + std::to_string(n_) + " elements");
      bias = bias.Contiguous();
    }
    if (ctx.has_input(3)) {
      VT_ASSIGN_OR_RETURN(mul, ctx.RequireTensor(3));
      if (mul.dtype() != DType::kFloat32 || mul.shape() != out)
        return ctx.Error("M " + ShapeToString(mul.shape()) + " must be f32 of Y's shape " +
                         ShapeToString(out));
      mul = mul.Contiguous();
    }
    Tensor y = ctx.AllocOutput(0, DType::kFloat32, out);
    const int64_t rows = k_ == 0 || x0.numel() == 0 ? y.numel() / std::max<int64_t>(n_, 1)
                                                    : x0.numel() / k_;
    if (y.numel() == 0) return Status::Ok();
    const Tensor x = x0.Contiguous();
    const float* px = x.data<float>();
    float* py = y.mutable_data<float>();
    kernels::F32GemmEpilogue ep;
    ep.bias_n = bias.defined() ? bias.data<float>() : nullptr;
    const F32GemmB b{F32GemmB::Kind::kPanels, nullptr, 0, &panels_};
    const size_t K = static_cast<size_t>(k_), N = static_cast<size_t>(n_);
    // Without an activation one GEMM covers every row; with one, blocks of rows alternate
    // GEMM and activation (a decode step is a single block either way).
    const int64_t block = act_.none ? rows : kRowBlock;
    for (int64_t r0 = 0; r0 < rows; r0 += block) {
      const int64_t m = std::min(block, rows - r0);
      kernels::F32Gemm(KernelFor(static_cast<size_t>(m)), static_cast<size_t>(m), N, K,
                       F32GemmA{F32GemmA::Kind::kMk, px + r0 * k_, K}, b, py + r0 * n_, N, ep,
                       ctx.threads());
      if (!act_.none)
        ApplyActivation(*act_row_, act_, py + r0 * n_,
                        mul.defined() ? mul.data<float>() + r0 * n_ : nullptr, py + r0 * n_, m * n_,
                        ctx.threads());
    }
    return Status::Ok();
  }

 private:
  DenseKernel() = default;
  const kernels::F32GemmKernel& KernelFor(size_t m) const {
    if (!isa_) return kernels::F32GemmKernelForPanels(m, static_cast<size_t>(n_));
    const kernels::F32GemmKernel* k =
        kernels::FindF32GemmKernel(F32GemmRowNameForPanels(*isa_, static_cast<int64_t>(m), n_));
    return k != nullptr ? *k : kernels::F32GemmKernelForM(m);
  }

  FusedActivation act_;
  const kernels::GeluKernel* act_row_ = nullptr;
  int64_t k_ = 0, n_ = 0;
  kernels::F32Panels panels_;
  std::optional<IsaLevel> isa_;
};

VT_REGISTER_OP("ai.vtensor", "Dense", 1, kMaxOpset, KernelFactory(DenseKernel::Make));

}  // namespace
}  // namespace vt::ops
