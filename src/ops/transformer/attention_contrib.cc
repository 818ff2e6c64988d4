// com.microsoft Attention (ONNX Runtime contrib operator, version 1): self attention with the
// Q, K and V projections fused.
//
//   input    (B, S, In); weights (In, Dq + Dk + Dv) with qkv_hidden_sizes = [Dq, Dk, Dv]
//            (default three equal parts, Dq == Dk); bias (Dq + Dk + Dv), optional
//   mask_index  int32: (B) end positions, (2B) end then start positions, (3B + 2) (the first B
//            are end positions), (B, T), (B, S, T) or Megatron (B, 1, M, M): masked keys get
//            mask_filter_value added (mha_core.h)
//   past     (2, B, N, P, H); with past_present_share_buffer, (2, B, N, M, H) and input
//            past_sequence_length (the rows in use), present keeping the buffer size
//   attention_bias  (B | 1, N | 1, S, T)
//   outputs  output (B, S, Dv); present (2, B, N, T, H), T = past + S
//   attrs    num_heads, qkv_hidden_sizes, unidirectional, scale, mask_filter_value,
//            past_present_share_buffer. do_rotary = 1 is refused (docs/attention.md: the
//            text does not define the rotation; ONNX Runtime's CPU kernel refuses it too)
//
// The projection runs as one f32 GEMM into a (B, S, Dq + Dk + Dv) buffer that the attention
// reads Q, K and V from in place (strides). ONNX Runtime 1.30's CPU kernel rejects the Megatron
// mask, past together with attention_bias, past_present_share_buffer and a missing bias; the
// operator follows the text there.
//
// Types: float, float16, bfloat16 (computed in f32). Errors: InvalidArgument naming the node
// and the input.
#include <memory>
#include <string>
#include <vector>

#include "kernels/gemm/f32_gemm.h"
#include "ops/common/f32_compute.h"
#include "ops/common/row_kernels.h"
#include "ops/transformer/attention_common.h"
#include "ops/transformer/mha_core.h"
#include "vtensor/exec/kernel_description.h"

namespace vt::ops {
namespace {

struct AttnAttrs {
  int64_t num_heads = 0;
  std::vector<int64_t> qkv;  // qkv_hidden_sizes, empty when absent
  float scale = 0.0f, mask_filter = -10000.0f;
  bool unidirectional = false, share_buffer = false;
};

class MsAttentionKernel final : public OpKernel, public KernelDescription {
 public:
  MsAttentionKernel(const AttnAttrs& a, const kernels::AttentionKernel& k, UnpackedGemmRows gemm)
      : a_(a), kernel_(k), gemm_(gemm) {}
  Status Compute(KernelContext& ctx) const override;
  std::string Describe() const override {
    return std::string(kernel_.name) + "; present contiguous (BNSH)";
  }

 private:
  AttnAttrs a_;
  const kernels::AttentionKernel& kernel_;
  UnpackedGemmRows gemm_;  // the input projection's rows
};

Status MsAttentionKernel::Compute(KernelContext& ctx) const {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor w, ctx.RequireTensor(1));
  const Tensor *bias = OptionalInput(ctx, 2), *mask = OptionalInput(ctx, 3);
  const Tensor *past = OptionalInput(ctx, 4), *ab = OptionalInput(ctx, 5);
  const Tensor* psl = OptionalInput(ctx, 6);
  const DType dt = x.dtype();
  if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kBFloat16)
    return ctx.Error(std::string("input element type ") + DTypeName(dt) +
                     " (expected float, float16 or bfloat16)");
  if (x.rank() != 3) return ctx.Error("input 'input' must be 3-D, got " + DimsOf(x));
  const int64_t B = x.dim(0), S = x.dim(1), In = x.dim(2), N = a_.num_heads;
  if (w.rank() != 2 || w.dim(0) != In || w.dtype() != dt)
    return ctx.Error("input weights " + DimsOf(w) + " must be (" + std::to_string(In) +
                     ", Dq + Dk + Dv) of the input's type");
  const int64_t total = w.dim(1);
  int64_t Dq = total / 3, Dk = total / 3, Dv = total / 3;
  if (!a_.qkv.empty()) Dq = a_.qkv[0], Dk = a_.qkv[1], Dv = a_.qkv[2];
  if (Dq + Dk + Dv != total || Dq != Dk || Dq % N != 0 || Dv % N != 0 || Dq <= 0 || Dv <= 0)
    return ctx.Error("input weights " + DimsOf(w) + ": Dq + Dk + Dv = " + std::to_string(total) +
                     " must split into Dq == Dk and Dv, each a multiple of num_heads = " +
                     std::to_string(N) + (a_.qkv.empty() ? " (three equal parts)" : ""));
  if (bias != nullptr && (bias->numel() != total || bias->dtype() != dt))
    return ctx.Error("input bias " + DimsOf(*bias) + " must hold Dq + Dk + Dv = " +
                     std::to_string(total) + " values of the input's type");
  const int64_t H = Dq / N, Hv = Dv / N;
  MhaCall c;
  c.B = B, c.S = c.L = S, c.N = N, c.H = H, c.Hv = Hv, c.dtype = dt;
  // Q, K, V = input * weights + bias, one GEMM into (B, S, Dq + Dk + Dv).
  const Tensor xf = AsF32(x), wf = AsF32(w);
  const Tensor bf = bias != nullptr ? AsF32(*bias) : Tensor();
  std::vector<float> qkv(static_cast<size_t>(B * S * total));
  kernels::F32GemmA ga;
  ga.data = xf.data<float>(), ga.ld = static_cast<size_t>(In);
  kernels::F32GemmB gb;
  gb.data = wf.data<float>(), gb.ld = static_cast<size_t>(total);
  kernels::F32GemmEpilogue ep;
  ep.bias_n = bias != nullptr ? bf.data<float>() : nullptr;
  const size_t rows = static_cast<size_t>(B * S), cols = static_cast<size_t>(total);
  kernels::F32Gemm(gemm_.ForB(rows, cols), rows, cols, static_cast<size_t>(In), ga, gb, qkv.data(),
                   cols, ep, ctx.threads());
  const ptrdiff_t bstride = S * total;
  c.q = {qkv.data(), DType::kFloat32, bstride, H, total, nullptr};
  c.k = {qkv.data() + Dq, DType::kFloat32, bstride, H, total, nullptr};
  c.v = {qkv.data() + Dq + Dk, DType::kFloat32, bstride, Hv, total, nullptr};
  // Past (2, B, N, P, H).
  Tensor past_c;
  if (past != nullptr) {
    if (past->rank() != 5 || past->dim(0) != 2 || past->dim(1) != B || past->dim(2) != N ||
        past->dim(4) != H || past->dtype() != dt || H != Hv)
      return ctx.Error("input past " + DimsOf(*past) + " must be (2, " + std::to_string(B) +
                       ", " + std::to_string(N) + ", P, " + std::to_string(H) +
                       ") of the input's type, with equal Q, K and V head sizes");
    past_c = past->Contiguous();
    const int64_t P = past->dim(3);
    c.past_k = past_c.raw_data();
    c.past_v = static_cast<const char*>(past_c.raw_data()) + B * N * P * H * DTypeSize(dt);
    c.past_capacity = c.past = P;
  }
  c.present_capacity = c.past + S;
  if (a_.share_buffer && past != nullptr) {
    if (psl == nullptr || psl->dtype() != DType::kInt32 || psl->numel() != 1)
      return ctx.Error("past_present_share_buffer needs input past_sequence_length (one int32)");
    const int64_t used = psl->GetInt64(0);
    if (used < 0 || used + S > c.past_capacity)
      return ctx.Error("input past_sequence_length = " + std::to_string(used) + " plus " +
                       std::to_string(S) + " new rows exceeds the past buffer of " +
                       std::to_string(c.past_capacity) + " rows");
    c.past = used;
    c.present_capacity = c.past_capacity;
    c.copy_whole_past = true;
  }
  const int64_t T = c.past + S;
  std::vector<float> mask_buf;
  if (mask != nullptr)
    VT_RETURN_IF_ERROR(KeyPaddingTerm(ctx, *mask, "mask_index", B, S, S, c.past,
                                      a_.mask_filter, &mask_buf, &c.mask));
  Tensor ab_f;
  if (ab != nullptr)
    VT_RETURN_IF_ERROR(AttentionBiasTerm(ctx, *ab, "attention_bias", B, N, S, T, &ab_f,
                                         &c.bias));
  c.causal = a_.unidirectional;
  c.scale = DefaultScale(a_.scale, H);
  Tensor y = ctx.AllocOutput(0, dt, Shape{B, S, Dv});
  c.out = y.raw_mutable_data();
  if (ctx.output_requested(1)) {
    if (H != Hv) return ctx.Error("output present needs equal K and V head sizes");
    Tensor pr = ctx.AllocOutput(1, dt, Shape{2, B, N, c.present_capacity, H});
    c.present_k = pr.raw_mutable_data();
    c.present_v = static_cast<char*>(c.present_k) +
                  B * N * c.present_capacity * H * DTypeSize(dt);
  }
  return RunMha(ctx, c, kernel_);
}

Expected<std::unique_ptr<OpKernel>> MakeAttention(const KernelInit& init) {
  const Node& node = init.node;
  auto bad = [&](const std::string& m) { return AnnotateNode(InvalidArgument(m), node); };
  AttnAttrs a;
  a.num_heads = node.GetInt("num_heads", 0);
  if (a.num_heads <= 0) return bad("attribute num_heads must be given and positive");
  a.qkv = node.GetInts("qkv_hidden_sizes");
  if (!a.qkv.empty() && a.qkv.size() != 3)
    return bad("attribute qkv_hidden_sizes must hold three values");
  a.scale = node.GetFloat("scale", 0.0f);
  a.mask_filter = node.GetFloat("mask_filter_value", -10000.0f);
  a.unidirectional = node.GetInt("unidirectional", 0) != 0;
  a.share_buffer = node.GetInt("past_present_share_buffer", 0) != 0;
  if (node.GetInt("do_rotary", 0) != 0)
    return AnnotateNode(Unimplemented(
        "attribute do_rotary = 1 is not supported: the operator text does not define the "
        "rotation; apply RotaryEmbedding to Q and K before MultiHeadAttention instead"), node);
  return std::unique_ptr<OpKernel>(
      new MsAttentionKernel(a, AttentionRowFor(init), UnpackedGemmRows(init)));
}

}  // namespace

VT_REGISTER_OP("com.microsoft", "Attention", 1, kMaxOpset, KernelFactory(MakeAttention));

}  // namespace vt::ops
