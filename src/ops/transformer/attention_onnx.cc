// ONNX Attention, opsets 23, 24 and 25 (docs/Changelog.md of ONNX):
//
//   Q (B, Hq, Sq, D) or (B, Sq, Hq * D) with q_num_heads; K (B, Hkv, Skv, D) or
//   (B, Skv, Hkv * D); V (B, Hkv, Skv, Dv) or (B, Skv, Hkv * Dv), with kv_num_heads; Hq a
//   multiple of Hkv (query head h reads KV head h / (Hq / Hkv))
//   attn_mask  broadcastable to (B, Hq, Sq, T): bool (false: -inf) or numeric (added); from
//              opset 24 its last dimension may be shorter than T (the rest is -inf)
//   past_key (B, Hkv, P, D), past_value (B, Hkv, P, Dv) -> present_key / present_value with
//              T = P + Skv rows; nonpad_kv_seqlen (opset 24, int64 (B)): keys at and past
//              nonpad_kv_seqlen[b] are padding (an external cache, without past_key)
//   is_causal  key j is visible to query row i iff j <= i + offset, offset = P, or
//              nonpad_kv_seqlen[b] - Sq with an external cache (rows before it see nothing)
//   left_window_size / right_window_size (opset 25): keys within [p - left, p + right] of the
//              row's position p = offset + i
//   scores = scale * Q K^T (scale default 1/sqrt(D)), softcap c > 0: c * tanh(scores / c),
//   plus the mask; softmax; Y = P V. A row without a visible key is 0 (Y and mode 3).
//   qk_matmul_output (B, Hq, Sq, T) by qk_matmul_output_mode: 0 scaled Q K^T, 1 after softcap,
//   2 after the mask (-inf where disallowed), 3 the probabilities
//
// Types: Q, K (T1) and V (T2) float, float16, bfloat16 or double, computed with f32 softmax
// (softmax_precision asks for at least the input precision; f32 is at least that for the 16-bit
// types and is used for double too). The mask may be bool or any numeric type. f32 and f16
// operands are read in place; the others are converted once.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "ops/common/f32_compute.h"
#include "ops/common/row_kernels.h"
#include "ops/transformer/attention_common.h"
#include "ops/transformer/kv_cache.h"
#include "ops/transformer/rotary.h"
#include "vtensor/exec/kernel_description.h"

namespace vt::ops {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

struct OnnxAttrs {
  bool causal = false;
  int64_t q_heads = 0, kv_heads = 0, mode = 0, left = -1, right = -1;
  float scale = 0.0f, softcap = 0.0f;
};

// A 3-D (B, S, H * d) or 4-D (B, H, S, d) operand as heads x rows.
struct Operand {
  int64_t B = 0, heads = 0, seq = 0, dim = 0;
  bool bsnh = false;
  ptrdiff_t batch() const { return heads * seq * dim; }
  ptrdiff_t head() const { return bsnh ? dim : seq * dim; }
  ptrdiff_t row() const { return bsnh ? heads * dim : dim; }
};

Status ReadOperand(const KernelContext& ctx, const Tensor& t, const char* name, int64_t heads,
                   Operand* o) {
  if (t.rank() == 4) {
    *o = {t.dim(0), t.dim(1), t.dim(2), t.dim(3), false};
    return Status::Ok();
  }
  if (t.rank() != 3)
    return ctx.Error(std::string("input ") + name + " must be 3-D or 4-D, got " + DimsOf(t));
  if (heads <= 0)
    return ctx.Error(std::string("3-D input ") + name + " needs attributes q_num_heads and "
                     "kv_num_heads");
  if (t.dim(2) % heads != 0)
    return ctx.Error(std::string("input ") + name + " hidden size " + std::to_string(t.dim(2)) +
                     " is not a multiple of its head count " + std::to_string(heads));
  *o = {t.dim(0), heads, t.dim(1), t.dim(2) / heads, true};
  return Status::Ok();
}

class OnnxAttentionKernel final : public OpKernel, public KernelDescription {
 public:
  OnnxAttentionKernel(const OnnxAttrs& a, const kernels::AttentionKernel& k) : a_(a), kernel_(k) {}
  Status Compute(KernelContext& ctx) const override;
  std::string Describe() const override {
    return std::string(kernel_.name) + "; present_key / present_value contiguous (BNSH)";
  }

 private:
  Status Mask(KernelContext& ctx, const Tensor& m, const Operand& q, int64_t T, bool full,
              const std::vector<int64_t>& nonpad, std::vector<float>* buf, ScoreTerm* term,
              int64_t* mask_len) const;
  OnnxAttrs a_;
  const kernels::AttentionKernel& kernel_;
};

// attn_mask as an additive f32 term over (batch, query head, row, key). `full`: materialise it
// at T keys (shorter masks padded with -inf, nonpad_kv_seqlen folded in) for the score output;
// else keep the mask's own shape and report a shorter length in *mask_len.
Status OnnxAttentionKernel::Mask(KernelContext& ctx, const Tensor& m, const Operand& q, int64_t T,
                                 bool full, const std::vector<int64_t>& nonpad,
                                 std::vector<float>* buf, ScoreTerm* term,
                                 int64_t* mask_len) const {
  if (m.rank() < 1 || m.rank() > 4)
    return ctx.Error("input attn_mask must have rank 1 to 4, got " + DimsOf(m));
  int64_t d[4] = {1, 1, 1, 1};
  for (int i = 0; i < m.rank(); ++i) d[4 - m.rank() + i] = m.dim(i);
  const int64_t want[4] = {q.B, q.heads, q.seq, T};
  for (int i = 0; i < 3; ++i)
    if (d[i] != 1 && d[i] != want[i])
      return ctx.Error("input attn_mask " + DimsOf(m) + " does not broadcast to (" +
                       std::to_string(q.B) + ", " + std::to_string(q.heads) + ", " +
                       std::to_string(q.seq) + ", " + std::to_string(T) + ")");
  const bool pads = ctx.opset() >= 24 && d[3] < T;
  if (d[3] != T && d[3] != 1 && !pads)
    return ctx.Error("input attn_mask last dimension " + std::to_string(d[3]) +
                     " must be the total sequence length " + std::to_string(T) +
                     (ctx.opset() >= 24 ? " or shorter" : " or 1"));
  const int64_t len = pads ? d[3] : T;
  *mask_len = len;
  // Values as f32: false -> -inf, numbers converted.
  const Tensor mc = m.Contiguous();
  const int64_t n = mc.numel();
  std::vector<float> vals(static_cast<size_t>(n));
  if (m.dtype() == DType::kBool) {
    const uint8_t* p = mc.data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) vals[i] = p[i] ? 0.0f : kNegInf;
  } else {
    for (int64_t i = 0; i < n; ++i) vals[i] = static_cast<float>(mc.GetDouble(i));
  }
  const ptrdiff_t sk = d[3] == 1 && !pads ? 0 : 1;
  const ptrdiff_t sr = d[2] == 1 ? 0 : d[3];
  const ptrdiff_t sh = d[1] == 1 ? 0 : d[2] * d[3];
  const ptrdiff_t sb = d[0] == 1 ? 0 : d[1] * d[2] * d[3];
  if (!full) {
    *buf = std::move(vals);
    *term = {buf->data(), sb, sh, sr, sk};
    return Status::Ok();
  }
  // (B', H', S', T) with the padding of short masks and nonpad_kv_seqlen as -inf.
  const int64_t Bo = nonpad.empty() ? d[0] : q.B;
  buf->assign(static_cast<size_t>(Bo * d[1] * d[2] * T), 0.0f);
  for (int64_t b = 0; b < Bo; ++b)
    for (int64_t h = 0; h < d[1]; ++h)
      for (int64_t s = 0; s < d[2]; ++s) {
        float* row = buf->data() + ((b * d[1] + h) * d[2] + s) * T;
        const float* src = vals.data() + (d[0] == 1 ? 0 : b) * sb + h * sh + s * sr;
        const int64_t valid = nonpad.empty() ? T : nonpad[b];
        for (int64_t j = 0; j < T; ++j)
          row[j] = j < len && j < valid ? src[j * sk] : kNegInf;
      }
  *term = {buf->data(), Bo == 1 ? 0 : d[1] * d[2] * T, d[1] == 1 ? 0 : d[2] * T,
           d[2] == 1 ? 0 : T, 1};
  *mask_len = T;
  return Status::Ok();
}

// Operand `t` readable by the kernels: f32 (or f16 K / V) in place, else converted to f32.
const void* KernelView(const Tensor& t, bool f16_ok, Tensor* keep) {
  if (t.dtype() == DType::kFloat32 || (f16_ok && t.dtype() == DType::kFloat16))
    return t.raw_data();
  *keep = AsF32(t);
  return keep->raw_data();
}

Status OnnxAttentionKernel::Compute(KernelContext& ctx) const {
  VT_ASSIGN_OR_RETURN(Tensor q0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor k0, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor v0, ctx.RequireTensor(2));
  const Tensor Q = q0.Contiguous(), K = k0.Contiguous(), V = v0.Contiguous();
  const Tensor* mask = OptionalInput(ctx, 3);
  const Tensor* pk = OptionalInput(ctx, 4);
  const Tensor* pv = OptionalInput(ctx, 5);
  const Tensor* nonpad_t = ctx.opset() >= 24 ? OptionalInput(ctx, 6) : nullptr;
  for (const Tensor* t : {&Q, &K, &V})
    if (!IsAttentionFloat(t->dtype()))
      return ctx.Error(std::string("inputs Q, K and V must be float tensors, got ") +
                       DTypeName(t->dtype()));
  if (K.dtype() != Q.dtype())
    return ctx.Error("inputs Q and K must have the same element type");
  Operand q, k, v;
  VT_RETURN_IF_ERROR(ReadOperand(ctx, Q, "Q", a_.q_heads, &q));
  VT_RETURN_IF_ERROR(ReadOperand(ctx, K, "K", a_.kv_heads, &k));
  VT_RETURN_IF_ERROR(ReadOperand(ctx, V, "V", a_.kv_heads, &v));
  if (k.B != q.B || v.B != q.B || k.dim != q.dim || v.heads != k.heads || v.seq != k.seq)
    return ctx.Error("inputs Q " + DimsOf(Q) + ", K " + DimsOf(K) + " and V " + DimsOf(V) +
                     " disagree on batch, head size, KV heads or KV sequence length");
  if (k.heads <= 0 || q.heads % k.heads != 0)
    return ctx.Error("query heads " + std::to_string(q.heads) + " are not a multiple of the KV "
                     "heads " + std::to_string(k.heads) + " (inputs Q and K)");
  const int64_t B = q.B, D = q.dim, Dv = v.dim, Hkv = k.heads, Skv = k.seq;
  if ((pk == nullptr) != (pv == nullptr))
    return ctx.Error("inputs past_key and past_value must be both present or both absent");
  int64_t P = 0;
  if (pk != nullptr) {
    if (pk->rank() != 4 || pk->dim(0) != B || pk->dim(1) != Hkv || pk->dim(3) != D ||
        pk->dtype() != K.dtype() || pv->rank() != 4 || pv->dim(0) != B || pv->dim(1) != Hkv ||
        pv->dim(2) != pk->dim(2) || pv->dim(3) != Dv || pv->dtype() != V.dtype())
      return ctx.Error("inputs past_key " + DimsOf(*pk) + " / past_value " + DimsOf(*pv) +
                       " must be (" + std::to_string(B) + ", " + std::to_string(Hkv) + ", P, " +
                       std::to_string(D) + ") / (..., " + std::to_string(Dv) +
                       ") of the K / V types");
    P = pk->dim(2);
  }
  const int64_t T = P + Skv;
  std::vector<int64_t> nonpad;
  if (nonpad_t != nullptr) {
    if (pk != nullptr)
      return ctx.Error("input nonpad_kv_seqlen cannot be used together with past_key");
    if (nonpad_t->dtype() != DType::kInt64 || nonpad_t->numel() != B)
      return ctx.Error("input nonpad_kv_seqlen must be int64 (" + std::to_string(B) + ")");
    for (int64_t b = 0; b < B; ++b) {
      nonpad.push_back(nonpad_t->GetInt64(b));
      if (nonpad[b] < 0 || nonpad[b] > T)
        return ctx.Error("input nonpad_kv_seqlen[" + std::to_string(b) + "] = " +
                         std::to_string(nonpad[b]) + " is outside [0, " + std::to_string(T) +
                         "]");
    }
  }
  // Present caches (BNSH) when requested or when a past cache must be prepended.
  const bool want_pk = ctx.output_requested(1), want_pv = ctx.output_requested(2);
  Tensor prk, prv;
  auto build = [&](const Tensor& src, const Operand& o, const Tensor* past, bool want,
                   size_t out, Tensor* dst) {
    const Shape shape{B, Hkv, T, o.dim};
    *dst = want ? ctx.AllocOutput(out, src.dtype(), shape) : Tensor::Empty(src.dtype(), shape);
    KvAppend app;
    app.batch = B, app.heads = Hkv, app.head_size = o.dim, app.capacity = T;
    const Tensor past_c = past ? past->Contiguous() : Tensor();
    app.past = past ? past_c.raw_data() : nullptr;
    app.past_capacity = P, app.new_rows = Skv;
    app.past_rows.assign(B, P), app.new_at.assign(B, P);
    const size_t es = DTypeSize(src.dtype());
    const char* base = static_cast<const char*>(src.raw_data());
    AppendKv(app, es, dst->raw_mutable_data(), [&](size_t b, size_t h, size_t r, void* row) {
      std::memcpy(row, base + (b * o.batch() + h * o.head() + r * o.row()) * es, o.dim * es);
    }, ctx.threads());
  };
  const bool need_cache = pk != nullptr;
  if (want_pk || need_cache) build(K, k, pk, want_pk, 1, &prk);
  if (want_pv || need_cache) build(V, v, pv, want_pv, 2, &prv);
  AttentionProblem p;
  p.batch = B, p.q_heads = q.heads, p.kv_heads = Hkv, p.q_len = q.seq;
  p.head_size = D, p.v_head_size = Dv;
  const bool f16_kv = K.dtype() == DType::kFloat16 && V.dtype() == DType::kFloat16;
  p.kv_type = f16_kv ? kernels::AttentionKv::kF16 : kernels::AttentionKv::kF32;
  Tensor kk, vk;
  if (need_cache) {
    p.k = {KernelView(prk, f16_kv, &kk), Hkv * T * D, T * D, D};
    p.v = {KernelView(prv, f16_kv, &vk), Hkv * T * Dv, T * Dv, Dv};
  } else {
    p.k = {KernelView(K, f16_kv, &kk), k.batch(), k.head(), k.row()};
    p.v = {KernelView(V, f16_kv, &vk), v.batch(), v.head(), v.row()};
  }
  Tensor qk_keep;
  p.q = {static_cast<const float*>(KernelView(Q, false, &qk_keep)), q.batch(), q.head(), q.row()};
  const Shape yshape = q.bsnh ? Shape{B, q.seq, q.heads * Dv} : Shape{B, q.heads, q.seq, Dv};
  Tensor y = ctx.AllocOutput(0, Q.dtype(), yshape);
  Tensor yf = Q.dtype() == DType::kFloat32 ? y : Tensor::Empty(DType::kFloat32, yshape);
  Operand yo{B, q.heads, q.seq, Dv, q.bsnh};
  p.out = {yf.mutable_data<float>(), yo.batch(), yo.head(), yo.row()};
  const bool want_qk = ctx.output_requested(3);
  std::vector<float> mask_buf;
  int64_t mask_len = T;
  if (mask != nullptr)
    VT_RETURN_IF_ERROR(Mask(ctx, *mask, q, T, want_qk, nonpad, &mask_buf, &p.mask, &mask_len));
  else if (want_qk && !nonpad.empty()) {
    mask_buf.assign(static_cast<size_t>(B * T), 0.0f);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = nonpad[b]; j < T; ++j) mask_buf[b * T + j] = kNegInf;
    p.mask = {mask_buf.data(), T, 0, 0, 1};
  }
  p.keys.resize(B);
  for (int64_t b = 0; b < B; ++b) {
    BatchKeys& kb = p.keys[b];
    const int64_t valid = nonpad.empty() || want_qk ? T : nonpad[b];
    kb.kv_end = static_cast<size_t>(std::min(valid, mask_len));
    kb.q_pos = nonpad.empty() ? P : nonpad[b] - q.seq;
  }
  p.causal = a_.causal;
  p.window_left = a_.left, p.window_right = a_.right;
  p.scale = DefaultScale(a_.scale, D);
  p.softcap = a_.softcap;
  Tensor qk, qkf;
  if (want_qk) {
    qk = ctx.AllocOutput(3, Q.dtype(), Shape{B, q.heads, q.seq, T});
    qkf = Tensor::Zeros(DType::kFloat32, qk.shape());
    p.scores = qkf.mutable_data<float>();
    p.scores_batch = q.heads * q.seq * T, p.scores_head = q.seq * T, p.scores_row = T;
    using St = kernels::AttentionScoresStage;
    p.stage = a_.mode == 0 ? St::kScaled : a_.mode == 1 ? St::kSoftcapped
              : a_.mode == 2 ? St::kMasked : St::kProbabilities;
  }
  RunAttention(p, kernel_, ctx.threads());
  if (Q.dtype() != DType::kFloat32) StoreF32As(yf, y);
  if (want_qk) StoreF32As(qkf, qk);
  return Status::Ok();
}

Expected<std::unique_ptr<OpKernel>> MakeOnnxAttention(const KernelInit& init) {
  const Node& node = init.node;
  auto bad = [&](const std::string& m) { return AnnotateNode(InvalidArgument(m), node); };
  OnnxAttrs a;
  a.causal = node.GetInt("is_causal", 0) != 0;
  a.q_heads = node.GetInt("q_num_heads", 0);
  a.kv_heads = node.GetInt("kv_num_heads", 0);
  if ((a.q_heads > 0) != (a.kv_heads > 0))
    return bad("attributes q_num_heads and kv_num_heads must be given together");
  if (a.q_heads > 0 && a.q_heads % a.kv_heads != 0)
    return bad("attribute q_num_heads = " + std::to_string(a.q_heads) +
               " is not a multiple of kv_num_heads = " + std::to_string(a.kv_heads));
  a.mode = node.GetInt("qk_matmul_output_mode", 0);
  if (a.mode < 0 || a.mode > 3) return bad("attribute qk_matmul_output_mode must be 0 to 3");
  a.scale = node.GetFloat("scale", 0.0f);
  a.softcap = node.GetFloat("softcap", 0.0f);
  if (node.opset >= 25) {
    a.left = node.GetInt("left_window_size", -1);
    a.right = node.GetInt("right_window_size", -1);
    if (a.left < -1 || a.right < -1)
      return bad("attributes left_window_size / right_window_size must be -1 or >= 0");
  }
  const int64_t sp = node.GetInt("softmax_precision", 1);
  if (sp != 1 && sp != 10 && sp != 11 && sp != 16)
    return bad("attribute softmax_precision must be 1, 10, 11 or 16");
  return std::unique_ptr<OpKernel>(new OnnxAttentionKernel(a, AttentionRowFor(init)));
}

}  // namespace

VT_REGISTER_OP("", "Attention", 23, kMaxOpset, KernelFactory(MakeOnnxAttention));

}  // namespace vt::ops
