// com.microsoft MultiHeadAttention (ONNX Runtime contrib operator, version 1):
//
//   query    (B, S, D), or packed QKV (B, S, N, 3, H) with key and value absent
//   key      (B, L, D); packed KV (B, L, N, 2, H) with value absent; or (B, N, L, H) (K already
//            in BNSH, e.g. a cross-attention cache: no bias is added to it, as in ONNX Runtime)
//   value    (B, L, Dv), or (B, N, L, Hv) with a 4-D key
//   bias     (D + D + Dv): added to Q, K and V as they are read
//   key_padding_mask  int32 (B) lengths, (3B + 2) (the first B are lengths), (B, L) / (B, T),
//            (B, S, T): masked keys get mask_filter_value added
//   attention_bias    (B | 1, N | 1, S, T), added to the scores
//   past_key, past_value  (B, N, P, H) / (B, N, P, Hv); with past_sequence_length (buffer
//            sharing) P is the buffer's capacity, its first past_sequence_length rows are
//            used and present keeps the capacity
//   outputs  output (B, S, N * Hv); present_key / present_value (B, N, T, H) with
//            T = past + L; qk (B, N, S, T): the scores before the softmax, masks included
//   attrs    num_heads, scale (0: 1/sqrt(H)), unidirectional (causal, bottom-right with past),
//            mask_filter_value (-10000)
//
// ONNX Runtime 1.30's CPU kernel does not run packed QKV, packed KV or past_sequence_length
// (it ignores the latter); the operator follows the text there. cache_indirection (beam search
// reordering of past rows) is not implemented.
//
// Types: float, float16, bfloat16. Errors: InvalidArgument naming the node and the input.
#include <memory>
#include <string>
#include <vector>

#include "ops/common/f32_compute.h"
#include "ops/common/row_kernels.h"
#include "ops/transformer/attention_common.h"
#include "ops/transformer/mha_core.h"
#include "vtensor/exec/kernel_description.h"

namespace vt::ops {
namespace {

struct MhaAttrs {
  int64_t num_heads = 0;
  float scale = 0.0f, mask_filter = -10000.0f;
  bool unidirectional = false;
};

class MhaKernel final : public OpKernel, public KernelDescription {
 public:
  MhaKernel(const MhaAttrs& a, const kernels::AttentionKernel& k) : a_(a), kernel_(k) {}
  Status Compute(KernelContext& ctx) const override;
  std::string Describe() const override {
    return std::string(kernel_.name) + "; present_key / present_value contiguous (BNSH)";
  }

 private:
  Status Shapes(KernelContext& ctx, const Tensor& q, const Tensor* k, const Tensor* v,
                MhaCall* c) const;
  MhaAttrs a_;
  const kernels::AttentionKernel& kernel_;
};

// Q, K, V geometry from the input forms (no past yet).
Status MhaKernel::Shapes(KernelContext& ctx, const Tensor& q, const Tensor* k, const Tensor* v,
                         MhaCall* c) const {
  const int64_t N = a_.num_heads;
  c->N = N;
  auto rows = [&](const Tensor& t, ptrdiff_t batch, ptrdiff_t head, ptrdiff_t row,
                  int64_t offset) {
    return MhaRows{static_cast<const char*>(t.raw_data()) + offset * DTypeSize(t.dtype()),
                   t.dtype(), batch, head, row, nullptr};
  };
  if (q.rank() == 5) {  // packed QKV (B, S, N, 3, H)
    if (k != nullptr || v != nullptr || q.dim(2) != N || q.dim(3) != 3)
      return ctx.Error("packed QKV query " + DimsOf(q) + " must be (B, S, num_heads = " +
                       std::to_string(N) + ", 3, H) with key and value absent");
    c->B = q.dim(0), c->S = c->L = q.dim(1), c->H = c->Hv = q.dim(4);
    const int64_t H = c->H, row = N * 3 * H;
    c->q = rows(q, c->S * row, 3 * H, row, 0);
    c->k = rows(q, c->S * row, 3 * H, row, H);
    c->v = rows(q, c->S * row, 3 * H, row, 2 * H);
    return Status::Ok();
  }
  if (q.rank() != 3) return ctx.Error("input query must be 3-D or 5-D, got " + DimsOf(q));
  if (k == nullptr) return ctx.Error("input key is required unless query is packed QKV");
  c->B = q.dim(0), c->S = q.dim(1);
  if (q.dim(2) % N != 0)
    return ctx.Error("input query hidden size " + std::to_string(q.dim(2)) +
                     " is not a multiple of num_heads = " + std::to_string(N));
  c->H = q.dim(2) / N;
  const int64_t H = c->H, D = q.dim(2);
  c->q = rows(q, c->S * D, H, D, 0);
  if (k->dim(0) != c->B) return ctx.Error("input key " + DimsOf(*k) + " has another batch size");
  if (k->rank() == 5) {  // packed KV (B, L, N, 2, H)
    if (v != nullptr || k->dim(2) != N || k->dim(3) != 2 || k->dim(4) != H)
      return ctx.Error("packed KV key " + DimsOf(*k) + " must be (B, L, " + std::to_string(N) +
                       ", 2, " + std::to_string(H) + ") with value absent");
    c->L = k->dim(1), c->Hv = H;
    const int64_t row = N * 2 * H;
    c->k = rows(*k, c->L * row, 2 * H, row, 0);
    c->v = rows(*k, c->L * row, 2 * H, row, H);
    return Status::Ok();
  }
  if (v == nullptr) return ctx.Error("input value is required with a 3-D or 4-D key");
  if (k->rank() == 4) {  // (B, N, L, H) in BNSH
    if (k->dim(1) != N || k->dim(3) != H || v->rank() != 4 || v->dim(0) != c->B ||
        v->dim(1) != N || v->dim(2) != k->dim(2))
      return ctx.Error("4-D key " + DimsOf(*k) + " / value " + DimsOf(*v) + " must be (B, " +
                       std::to_string(N) + ", L, " + std::to_string(H) + ") / (B, " +
                       std::to_string(N) + ", L, Hv)");
    c->L = k->dim(2), c->Hv = v->dim(3);
    c->k = rows(*k, N * c->L * H, c->L * H, H, 0);
    c->v = rows(*v, N * c->L * c->Hv, c->L * c->Hv, c->Hv, 0);
    return Status::Ok();
  }
  if (k->rank() != 3 || k->dim(2) != D || v->rank() != 3 || v->dim(0) != c->B ||
      v->dim(1) != k->dim(1) || v->dim(2) % N != 0)
    return ctx.Error("input key " + DimsOf(*k) + " / value " + DimsOf(*v) + " must be (B, L, " +
                     std::to_string(D) + ") / (B, L, num_heads * Hv)");
  c->L = k->dim(1), c->Hv = v->dim(2) / N;
  c->k = rows(*k, c->L * D, H, D, 0);
  c->v = rows(*v, c->L * v->dim(2), c->Hv, v->dim(2), 0);
  return Status::Ok();
}

Status MhaKernel::Compute(KernelContext& ctx) const {
  VT_ASSIGN_OR_RETURN(Tensor q0, ctx.RequireTensor(0));
  std::vector<Tensor> keep;
  keep.reserve(12);
  auto opt = [&](size_t i) -> const Tensor* {
    const Tensor* t = OptionalInput(ctx, i);
    if (t == nullptr || t->is_contiguous()) return t;
    keep.push_back(t->Contiguous());
    return &keep.back();
  };
  const Tensor q = q0.Contiguous();
  const Tensor *k = opt(1), *v = opt(2), *bias = opt(3), *kpm = opt(4), *ab = opt(5);
  const Tensor *past_k = opt(6), *past_v = opt(7), *psl = opt(8);
  if (OptionalInput(ctx, 9) != nullptr)
    return ctx.Unsupported("input cache_indirection (beam search) is not implemented");
  const DType dt = q.dtype();
  if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kBFloat16)
    return ctx.Error(std::string("input query element type ") + DTypeName(dt) +
                     " (expected float, float16 or bfloat16)");
  for (const Tensor* t : {k, v, past_k, past_v})
    if (t != nullptr && t->dtype() != dt)
      return ctx.Error("inputs key, value, past_key and past_value must have the query's type");
  MhaCall c;
  c.dtype = dt;
  VT_RETURN_IF_ERROR(Shapes(ctx, q, k, v, &c));
  const int64_t B = c.B, N = c.N, H = c.H, Hv = c.Hv, D = N * H;
  // Bias (D + D + Dv), added to Q, K and V (not to a 4-D key / value).
  Tensor bias_f;
  if (bias != nullptr) {
    if (bias->numel() != 2 * D + N * Hv || !IsAttentionFloat(bias->dtype()))
      return ctx.Error("input bias " + DimsOf(*bias) + " must hold D + D + Dv = " +
                       std::to_string(2 * D + N * Hv) + " float values");
    bias_f = AsF32(*bias);
    const float* bf = bias_f.data<float>();
    c.q.bias = bf;
    if (k == nullptr || k->rank() != 4) c.k.bias = bf + D, c.v.bias = bf + 2 * D;
  }
  // Past caches.
  if ((past_k == nullptr) != (past_v == nullptr))
    return ctx.Error("inputs past_key and past_value must be both present or both absent");
  if (past_k != nullptr) {
    if (past_k->rank() != 4 || past_k->dim(0) != B || past_k->dim(1) != N ||
        past_k->dim(3) != H || past_v->rank() != 4 || past_v->dim(0) != B ||
        past_v->dim(1) != N || past_v->dim(2) != past_k->dim(2) || past_v->dim(3) != Hv)
      return ctx.Error("inputs past_key " + DimsOf(*past_k) + " / past_value " +
                       DimsOf(*past_v) + " must be (" + std::to_string(B) + ", " +
                       std::to_string(N) + ", P, " + std::to_string(H) + ") / (..., " +
                       std::to_string(Hv) + ")");
    c.past_k = past_k->raw_data(), c.past_v = past_v->raw_data();
    c.past_capacity = c.past = past_k->dim(2);
  }
  c.present_capacity = c.past + c.L;
  if (psl != nullptr) {
    if (past_k == nullptr || psl->dtype() != DType::kInt32 || psl->numel() != 1)
      return ctx.Error("input past_sequence_length must be one int32 value, with past_key");
    const int64_t used = psl->GetInt64(0);
    if (used < 0 || used + c.L > c.past_capacity)
      return ctx.Error("input past_sequence_length = " + std::to_string(used) + " plus " +
                       std::to_string(c.L) + " new rows exceeds the past_key buffer of " +
                       std::to_string(c.past_capacity) + " rows");
    c.past = used;
    c.present_capacity = c.past_capacity;
    c.copy_whole_past = true;
  }
  const int64_t T = c.past + c.L;
  // Masks.
  std::vector<float> mask_buf;
  if (kpm != nullptr)
    VT_RETURN_IF_ERROR(KeyPaddingTerm(ctx, *kpm, "key_padding_mask", B, c.S, c.L, c.past,
                                      a_.mask_filter, &mask_buf, &c.mask));
  Tensor ab_f;
  if (ab != nullptr)
    VT_RETURN_IF_ERROR(AttentionBiasTerm(ctx, *ab, "attention_bias", B, N, c.S, T, &ab_f,
                                         &c.bias));
  c.causal = a_.unidirectional;
  c.scale = DefaultScale(a_.scale, H);
  Tensor y = ctx.AllocOutput(0, dt, Shape{B, c.S, N * Hv});
  c.out = y.raw_mutable_data();
  if (ctx.output_requested(1))
    c.present_k = ctx.AllocOutput(1, dt, Shape{B, N, c.present_capacity, H}).raw_mutable_data();
  if (ctx.output_requested(2))
    c.present_v = ctx.AllocOutput(2, dt, Shape{B, N, c.present_capacity, Hv}).raw_mutable_data();
  std::vector<char> scratch_k, scratch_v;
  if ((c.present_k == nullptr) != (c.present_v == nullptr)) {
    // One present requested: the other still holds the appended cache for the kernels.
    std::vector<char>& buf = c.present_k == nullptr ? scratch_k : scratch_v;
    buf.resize(static_cast<size_t>(B * N * c.present_capacity *
                                   (c.present_k == nullptr ? H : Hv)) * DTypeSize(dt));
    (c.present_k == nullptr ? c.present_k : c.present_v) = buf.data();
  }
  if (ctx.output_requested(3))
    c.qk = ctx.AllocOutput(3, dt, Shape{B, N, c.S, T}).raw_mutable_data();
  return RunMha(ctx, c, kernel_);
}

Expected<std::unique_ptr<OpKernel>> MakeMha(const KernelInit& init) {
  const Node& node = init.node;
  MhaAttrs a;
  a.num_heads = node.GetInt("num_heads", 0);
  if (a.num_heads <= 0)
    return AnnotateNode(InvalidArgument("attribute num_heads must be given and positive"), node);
  a.scale = node.GetFloat("scale", 0.0f);
  a.mask_filter = node.GetFloat("mask_filter_value", -10000.0f);
  a.unidirectional = node.GetInt("unidirectional", 0) != 0;
  return std::unique_ptr<OpKernel>(new MhaKernel(a, AttentionRowFor(init)));
}

}  // namespace

VT_REGISTER_OP("com.microsoft", "MultiHeadAttention", 1, kMaxOpset, KernelFactory(MakeMha));

}  // namespace vt::ops
