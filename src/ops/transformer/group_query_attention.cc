// com.microsoft GroupQueryAttention (ONNX Runtime contrib operator, version 1), as ONNX Runtime
// 1.30's CPU kernel defines it:
//
//   inputs  query (B, S, N*H), or packed QKV (B, S, (N + 2*KV)*H) with key / value absent;
//           key, value (B, S_kv, KV*H) with S_kv == S, or S_kv == 0 with a past cache (shared
//           KV: the layer reads another layer's cache and appends nothing);
//           past_key, past_value (B, KV, P, H) BNSH; seqlens_k int32 (B) = total length - 1 per
//           batch entry; total_sequence_length int32 scalar T; cos_cache, sin_cache
//           (max_position, R/2) with do_rotary; position_ids int64 (B, S); attention_bias
//           (B|1, N|1, S, T); head_sink (N)
//   outputs output (B, S, N*H); present_key, present_value (B, KV, max(T, P), H);
//           output_qk (B, N, S, T)
//   attrs   num_heads, kv_num_heads, scale (0: 1/sqrt(H)), softcap, local_window_size,
//           do_rotary, rotary_interleaved, smooth_softmax, qk_output (1: scores before softmax,
//           with 0 at masked keys; 2: probabilities), causal (default 1)
//
// Per batch entry b, with total_b = seqlens_k[b] + 1: the first prompt (S == T) writes the new
// K / V at rows [0, S) and attends keys [0, total_b) (right padding: rows past total_b see what
// the last real token sees); otherwise the new rows go after past_b = total_b - S rows of the
// past cache. Query row s sits at position past_b + s (causal, bottom-right) and, with
// local_window_size w, sees the last w keys. Rotary positions are s on the first prompt
// (position_ids[0][0] + s when given), else past_b + s (position_ids[b][s] when given).
// Rows of present past the written ones are zero.
//
// KV cache quantization (k_quant_type / v_quant_type / kv_cache_bit_width with k_scale /
// v_scale) and sliding_window_cache are reported as not implemented; q_norm_weight /
// k_norm_weight are rejected, as ONNX Runtime's CPU kernel does.
//
// Types: float, float16, bfloat16 (ONNX Runtime's CPU kernel: float and float16). K and V are
// read by the kernels from the present cache in place (f32 or f16), Q from the input when it
// needs no rotation or conversion.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/common/f32_compute.h"
#include "ops/common/op_util.h"
#include "ops/common/row_kernels.h"
#include "ops/transformer/attention_common.h"
#include "ops/transformer/kv_cache.h"
#include "ops/transformer/rotary.h"
#include "vtensor/exec/kernel_description.h"
#include "vtensor/layout/layout_presets.h"

namespace vt::ops {
namespace {

struct GqaAttrs {
  int64_t num_heads = 0, kv_num_heads = 0, local_window = -1, qk_output = 0;
  float scale = 0.0f, softcap = 0.0f;
  bool do_rotary = false, interleaved = false, smooth_softmax = false, causal = true;
};

Expected<GqaAttrs> ReadAttrs(const Node& node) {
  auto bad = [&](const std::string& m) { return AnnotateNode(InvalidArgument(m), node); };
  GqaAttrs a;
  a.num_heads = node.GetInt("num_heads", 0);
  a.kv_num_heads = node.GetInt("kv_num_heads", 0);
  if (a.num_heads <= 0 || a.kv_num_heads <= 0)
    return bad("attributes num_heads and kv_num_heads must be given and positive");
  if (a.num_heads % a.kv_num_heads != 0)
    return bad("attribute num_heads = " + std::to_string(a.num_heads) +
               " is not a multiple of kv_num_heads = " + std::to_string(a.kv_num_heads));
  a.scale = node.GetFloat("scale", 0.0f);
  a.softcap = node.GetFloat("softcap", 0.0f);
  a.local_window = node.GetInt("local_window_size", -1);
  a.do_rotary = node.GetInt("do_rotary", 0) != 0;
  a.interleaved = node.GetInt("rotary_interleaved", 0) != 0;
  a.smooth_softmax = node.GetInt("smooth_softmax", 0) != 0;
  a.qk_output = node.GetInt("qk_output", 0);
  const int64_t causal = node.GetInt("causal", 1);
  if (causal != 0 && causal != 1) return bad("attribute causal must be 0 or 1");
  a.causal = causal == 1;
  if (a.qk_output < 0 || a.qk_output > 2) return bad("attribute qk_output must be 0, 1 or 2");
  if (!a.causal && a.local_window != -1)
    return bad("attribute local_window_size must be -1 when causal is 0");
  if (a.local_window == 0 || a.local_window < -1)
    return bad("attribute local_window_size must be -1 or positive");
  for (const char* q : {"k_quant_type", "v_quant_type"})
    if (node.GetString(q, "NONE") != "NONE")
      return AnnotateNode(Unimplemented("KV cache quantization (attribute " + std::string(q) +
                                        ") is not implemented"),
                          node);
  if (node.GetInt("kv_cache_bit_width", 0) != 0)
    return bad("attribute kv_cache_bit_width must be 0 without KV cache quantization");
  if (node.GetInt("sliding_window_cache", 0) != 0)
    return AnnotateNode(Unimplemented("sliding_window_cache = 1 is not implemented"), node);
  return a;
}

// Shapes and per-batch geometry of one call, after validation.
struct GqaShape {
  int64_t B = 0, S = 0, N = 0, KV = 0, H = 0, S_kv = 0, P = 0, T = 0, present = 0;
  bool packed = false, first_prompt = false;
  std::vector<int64_t> total;  // per batch: seqlens_k[b] + 1
  std::vector<int64_t> past;   // per batch: rows taken from the past cache
  std::vector<int64_t> qpos;   // per batch: position of query row 0
  int64_t rotary_half = 0, max_position = 0;
};

struct GqaInputs {
  Tensor query;
  const Tensor *key = nullptr, *value = nullptr, *past_key = nullptr, *past_value = nullptr;
  const Tensor *cos = nullptr, *sin = nullptr, *position_ids = nullptr;
  const Tensor *attention_bias = nullptr, *head_sink = nullptr;
  Tensor seqlens_k;  // contiguous int32
};

Status CheckShapes(const KernelContext& ctx, const GqaAttrs& a, const GqaInputs& in,
                   GqaShape* g) {
  const Tensor& q = in.query;
  if (q.rank() != 3) return ctx.Error("input query must be 3-D, got " + DimsOf(q));
  g->B = q.dim(0), g->S = q.dim(1), g->N = a.num_heads, g->KV = a.kv_num_heads;
  g->packed = in.key == nullptr;
  if (g->packed != (in.value == nullptr))
    return ctx.Error("inputs key and value must be both present or both absent (packed QKV)");
  const int64_t heads = g->packed ? g->N + 2 * g->KV : g->N;
  if (q.dim(2) % heads != 0 || q.dim(2) == 0)
    return ctx.Error("input query hidden size " + std::to_string(q.dim(2)) +
                     " is not a multiple of " + std::to_string(heads) + " heads");
  g->H = q.dim(2) / heads;
  g->S_kv = g->S;
  if (!g->packed) {
    for (const Tensor* t : {in.key, in.value})
      if (t->dtype() != q.dtype() || t->rank() != 3 || t->dim(0) != g->B ||
          t->dim(2) != g->KV * g->H)
        return ctx.Error(std::string("input ") + (t == in.key ? "key" : "value") + " " +
                         DimsOf(*t) + " must be " + DTypeName(q.dtype()) + " (" +
                         std::to_string(g->B) + ", S_kv, kv_num_heads * head_size = " +
                         std::to_string(g->KV * g->H) + ")");
    if (in.key->dim(1) != in.value->dim(1))
      return ctx.Error("inputs key and value must have the same sequence length");
    g->S_kv = in.key->dim(1);
    if (g->S_kv != g->S && !(g->S_kv == 0 && in.past_key != nullptr))
      return ctx.Error("input key sequence length " + std::to_string(g->S_kv) +
                       " must equal the query's " + std::to_string(g->S) +
                       " (or be 0 with past_key: shared KV)");
  }
  if ((in.past_key == nullptr) != (in.past_value == nullptr))
    return ctx.Error("inputs past_key and past_value must be both present or both absent");
  if (in.past_key != nullptr) {
    for (const Tensor* t : {in.past_key, in.past_value})
      if (t->dtype() != q.dtype() || t->rank() != 4 || t->dim(0) != g->B ||
          t->dim(1) != g->KV || t->dim(3) != g->H || t->dim(2) != in.past_key->dim(2))
        return ctx.Error(std::string("input ") + (t == in.past_key ? "past_key" : "past_value") +
                         " " + DimsOf(*t) + " must be " + DTypeName(q.dtype()) + " (" +
                         std::to_string(g->B) + ", " + std::to_string(g->KV) + ", P, " +
                         std::to_string(g->H) + ") with the same P for key and value");
    g->P = in.past_key->dim(2);
  }
  if (in.seqlens_k.dtype() != DType::kInt32 || in.seqlens_k.numel() != g->B)
    return ctx.Error("input seqlens_k must be int32 with batch_size = " + std::to_string(g->B) +
                     " elements, got " + DTypeName(in.seqlens_k.dtype()) +
                     DimsOf(in.seqlens_k));
  return Status::Ok();
}

Status CheckTotals(const KernelContext& ctx, const Tensor& total, const GqaInputs& in,
                   GqaShape* g) {
  if (total.dtype() != DType::kInt32 || total.numel() != 1)
    return ctx.Error("input total_sequence_length must be one int32 value");
  g->T = total.GetInt64(0);
  if (g->T <= 0) return ctx.Error("input total_sequence_length must be positive");
  g->present = std::max(g->T, g->P);
  g->first_prompt = g->S == g->T;
  if (!g->first_prompt && g->S > 1 && g->B != 1 && in.past_key != nullptr)
    return ctx.Error("batch_size must be 1 when sequence_length > 1 and past context is given");
  const int32_t* sl = in.seqlens_k.data<int32_t>();
  g->total.resize(g->B), g->past.resize(g->B), g->qpos.resize(g->B);
  for (int64_t b = 0; b < g->B; ++b) {
    const int64_t t = static_cast<int64_t>(sl[b]) + 1;
    const std::string at = "input seqlens_k[" + std::to_string(b) + "] = " + std::to_string(sl[b]);
    if (t <= 0 || t > g->present)
      return ctx.Error(at + " is outside the KV cache [0, " + std::to_string(g->present) + ")");
    if (!g->first_prompt && t < g->S)
      return ctx.Error(at + " is too small for sequence_length " + std::to_string(g->S));
    g->total[b] = t;
    const bool has_past = in.past_key != nullptr && !g->first_prompt;
    g->past[b] = g->S_kv == 0 ? t : has_past ? t - g->S : 0;
    if (g->past[b] > g->P && in.past_key != nullptr)
      return ctx.Error(at + " needs " + std::to_string(g->past[b]) +
                       " past rows, more than input past_key holds (" + std::to_string(g->P) +
                       ")");
    g->qpos[b] = g->S_kv == 0 ? (g->first_prompt ? 0 : t - g->S) : g->past[b];
  }
  return Status::Ok();
}

Status CheckOptional(const KernelContext& ctx, const GqaAttrs& a, const GqaInputs& in,
                     GqaShape* g) {
  if ((in.cos == nullptr) != (in.sin == nullptr))
    return ctx.Error("inputs cos_cache and sin_cache must be both present or both absent");
  if (a.do_rotary && in.cos == nullptr)
    return ctx.Error("do_rotary = 1 needs inputs cos_cache and sin_cache");
  if (a.do_rotary) {
    const Tensor& c = *in.cos;
    if (c.rank() != 2 || c.shape() != in.sin->shape() || c.dtype() != in.query.dtype() ||
        in.sin->dtype() != c.dtype() || 2 * c.dim(1) > g->H || c.dim(1) == 0)
      return ctx.Error("inputs cos_cache / sin_cache " + DimsOf(c) +
                       " must have the query's type and shape (max_position, R / 2) with "
                       "0 < R <= head_size = " + std::to_string(g->H));
    g->rotary_half = c.dim(1);
    g->max_position = c.dim(0);
  }
  if (in.position_ids != nullptr) {
    const Tensor& p = *in.position_ids;
    if (p.dtype() != DType::kInt64 || p.rank() != 2 || p.dim(0) != g->B || p.dim(1) < g->S)
      return ctx.Error("input position_ids " + DimsOf(p) + " must be int64 (" +
                       std::to_string(g->B) + ", >= " + std::to_string(g->S) + ")");
  }
  if (in.head_sink != nullptr &&
      (in.head_sink->numel() != g->N || !IsAttentionFloat(in.head_sink->dtype())))
    return ctx.Error("input head_sink must hold num_heads = " + std::to_string(g->N) +
                     " float values, got " + DimsOf(*in.head_sink));
  return Status::Ok();
}

int64_t RotaryPosition(const GqaShape& g, const Tensor* pos_ids, int64_t b, int64_t s) {
  if (pos_ids != nullptr) {
    const int64_t* p = pos_ids->data<int64_t>();
    return g.first_prompt ? p[0] + s : p[b * pos_ids->dim(1) + s];
  }
  return g.first_prompt ? s : g.total[b] - g.S + s;
}

template <typename T>
class GqaRun {
 public:
  GqaRun(KernelContext& ctx, const GqaAttrs& a, const GqaInputs& in, const GqaShape& g,
         const kernels::AttentionKernel& k, KvCacheGrowth* growth)
      : ctx_(ctx), a_(a), in_(in), g_(g), kernel_(k), growth_(growth) {}

  Status Run() {
    VT_RETURN_IF_ERROR(CheckPositions());
    const T* q = in_.query.data<T>();
    const int64_t qkv_row = (g_.packed ? g_.N + 2 * g_.KV : g_.N) * g_.H;
    // New K / V rows: (b, h, r) at base + b * S_kv * row + r * row + h * H.
    const T* k_new = g_.packed ? q + g_.N * g_.H : g_.S_kv ? in_.key->data<T>() : nullptr;
    const T* v_new = g_.packed ? q + (g_.N + g_.KV) * g_.H : g_.S_kv ? in_.value->data<T>() : nullptr;
    const int64_t kv_row = g_.packed ? qkv_row : g_.KV * g_.H;
    Tensor pk, pv;
    const bool in_place = Presents(&pk, &pv);
    KvAppend app;
    app.batch = g_.B, app.heads = g_.KV, app.head_size = g_.H;
    app.capacity = static_cast<size_t>(KvRowsPerHead(pk)), app.rows = g_.present;
    app.new_rows = g_.S_kv;
    for (int64_t b = 0; b < g_.B; ++b) {
      app.past_rows.push_back(g_.past[b]);
      app.new_at.push_back(g_.past[b]);
    }
    const int threads = ctx_.threads();
    auto past_of = [&](const Tensor* past, const Tensor& present) -> const void* {
      if (past == nullptr) return nullptr;
      app.past_capacity = static_cast<size_t>(KvRowsPerHead(*past));
      return in_place ? present.raw_data() : past->raw_data();
    };
    app.past = past_of(in_.past_key, pk);
    AppendKv(app, sizeof(T), pk.raw_mutable_data(), [&](size_t b, size_t h, size_t r, void* dst) {
      const T* src = k_new + (b * g_.S_kv + r) * kv_row + h * g_.H;
      if (a_.do_rotary) {
        const int64_t p = RotaryPosition(g_, in_.position_ids, b, r);
        RotateRow(src, static_cast<T*>(dst), Cos() + p * g_.rotary_half,
                  Sin() + p * g_.rotary_half, 2 * g_.rotary_half, g_.H, a_.interleaved);
      } else {
        std::memcpy(dst, src, g_.H * sizeof(T));
      }
    }, threads);
    app.past = past_of(in_.past_value, pv);
    AppendKv(app, sizeof(T), pv.raw_mutable_data(), [&](size_t b, size_t h, size_t r, void* dst) {
      std::memcpy(dst, v_new + (b * g_.S_kv + r) * kv_row + h * g_.H, g_.H * sizeof(T));
    }, threads);
    return Attend(q, qkv_row, pk, pv);
  }

 private:
  const T* Cos() const { return in_.cos->data<T>(); }
  const T* Sin() const { return in_.sin->data<T>(); }

  Status CheckPositions() {
    if (!a_.do_rotary) return Status::Ok();
    for (int64_t b = 0; b < g_.B; ++b)
      for (int64_t s = 0; s < g_.S; ++s) {
        const int64_t p = RotaryPosition(g_, in_.position_ids, b, s);
        if (p < 0 || p >= g_.max_position)
          return ctx_.Error((in_.position_ids ? "input position_ids: position " : "position ") +
                            std::to_string(p) + " of token (" + std::to_string(b) + ", " +
                            std::to_string(s) + ") is outside input cos_cache (" +
                            std::to_string(g_.max_position) + " positions)");
      }
    return Status::Ok();
  }

  // present_key / present_value. A decode or chunked-prefill step that appends the same rows
  // to every batch entry right after its past (T = P + S) grows the previous step's present in
  // place when that is what came back as the past (kv_cache.h); otherwise new caches: with
  // spare capacity when they are outputs that a next step can grow, exactly sized when the past
  // is a fixed buffer (P >= T) or nobody asked for them. Returns true when growing in place.
  bool Presents(Tensor* pk, Tensor* pv) {
    const DType dt = in_.query.dtype();
    const bool requested = ctx_.output_requested(1) && ctx_.output_requested(2);
    bool uniform = in_.past_key != nullptr && !g_.first_prompt && g_.S_kv > 0 &&
                   g_.present == g_.P + g_.S_kv;
    for (int64_t b = 0; b < g_.B && uniform; ++b) uniform = g_.past[b] == g_.P;
    if (requested && uniform &&
        growth_->Grow(*in_.past_key, *in_.past_value, g_.present, pk, pv)) {
      ctx_.SetOutput(1, *pk);
      ctx_.SetOutput(2, *pv);
      return true;
    }
    const Shape shape{g_.B, g_.KV, g_.present, g_.H};
    if (requested && g_.present == g_.P + g_.S_kv) {
      *pk = growth_->Allocate(dt, g_.B, g_.KV, g_.present, g_.H);
      *pv = growth_->Allocate(dt, g_.B, g_.KV, g_.present, g_.H);
      ctx_.SetOutput(1, *pk);
      ctx_.SetOutput(2, *pv);
      return false;
    }
    for (size_t out : {1, 2}) {
      Tensor& t = out == 1 ? *pk : *pv;
      t = ctx_.output_requested(out) ? ctx_.AllocOutput(out, dt, shape) : Tensor::Empty(dt, shape);
    }
    return false;
  }

  Status Attend(const T* q, int64_t qkv_row, const Tensor& pk, const Tensor& pv);

  KernelContext& ctx_;
  const GqaAttrs& a_;
  const GqaInputs& in_;
  const GqaShape& g_;
  const kernels::AttentionKernel& kernel_;
  KvCacheGrowth* growth_;
};

template <typename T>
Status GqaRun<T>::Attend(const T* q, int64_t qkv_row, const Tensor& pk, const Tensor& pv) {
  const int64_t B = g_.B, S = g_.S, N = g_.N, H = g_.H;
  AttentionProblem p;
  p.batch = B, p.q_heads = N, p.kv_heads = g_.KV, p.q_len = S, p.head_size = H;
  p.v_head_size = H;
  // Q: the input itself when f32 and not rotated; else one pass into f32 (B, S, N, H).
  std::vector<float> qf;
  if constexpr (std::is_same_v<T, float>) {
    if (!a_.do_rotary) p.q = {q, S * qkv_row, H, qkv_row};
  }
  if (p.q.data == nullptr) {
    qf.resize(static_cast<size_t>(B * S * N * H));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s) {
        const int64_t pos = a_.do_rotary ? RotaryPosition(g_, in_.position_ids, b, s) : 0;
        for (int64_t n = 0; n < N; ++n) {
          const T* src = q + (b * S + s) * qkv_row + n * H;
          float* dst = qf.data() + ((b * S + s) * N + n) * H;
          if (a_.do_rotary)
            RotateRow(src, dst, Cos() + pos * g_.rotary_half, Sin() + pos * g_.rotary_half,
                      2 * g_.rotary_half, H, a_.interleaved);
          else
            ConvertRow(src, dst, H);
        }
      }
    p.q = {qf.data(), S * N * H, H, N * H};
  }
  // K / V: the present caches in place (bf16 widened to f32 first: the kernels read f32 / f16).
  Tensor k_wide, v_wide;  // bf16 only: contiguous f32 copies
  if constexpr (std::is_same_v<T, BFloat16>) k_wide = AsF32(pk), v_wide = AsF32(pv);
  const Tensor& kf = std::is_same_v<T, BFloat16> ? k_wide : pk;
  const Tensor& vf = std::is_same_v<T, BFloat16> ? v_wide : pv;
  p.kv_type = std::is_same_v<T, Float16> ? kernels::AttentionKv::kF16 : kernels::AttentionKv::kF32;
  const int64_t cap = KvRowsPerHead(kf);
  p.k = {kf.raw_data(), g_.KV * cap * H, cap * H, H};
  p.v = {vf.raw_data(), g_.KV * cap * H, cap * H, H};
  Tensor y = ctx_.AllocOutput(0, in_.query.dtype(), Shape{B, S, N * H});
  Tensor yf = std::is_same_v<T, float> ? y : Tensor::Empty(DType::kFloat32, y.shape());
  p.out = {yf.mutable_data<float>(), S * N * H, H, N * H};
  // Right-padded rows of a first prompt (positions past total_b) under a local window: ONNX
  // Runtime 1.30 has two CPU paths that disagree on them. Its tiled path (f32, no softcap,
  // smooth softmax, head_sink or output_qk, present outputs bound) windows them at their own
  // positions, so late padding rows see nothing (zeros); its materialising path lets them see
  // what the last real token sees. The outputs at padding tokens are not meaningful; the
  // operator follows whichever path ONNX Runtime takes for the same node and inputs.
  const bool ort_tiled = std::is_same_v<T, float> && g_.T > 1 && a_.softcap == 0.0f &&
                         !a_.smooth_softmax && in_.head_sink == nullptr &&
                         !(a_.qk_output != 0 && ctx_.output_requested(3)) &&
                         ctx_.output_requested(1) && ctx_.output_requested(2);
  const bool clamp_padded_rows = a_.local_window > 0 && !ort_tiled;
  p.keys.resize(B);
  for (int64_t b = 0; b < B; ++b) {
    BatchKeys& k = p.keys[b];
    k.kv_end = static_cast<size_t>(g_.total[b]);
    k.q_pos = g_.qpos[b];
    if (clamp_padded_rows && g_.qpos[b] + S > g_.total[b])
      k.clamp_row = static_cast<size_t>(g_.total[b] - g_.qpos[b]);
  }
  p.causal = a_.causal;
  if (a_.local_window > 0) p.window_left = a_.local_window - 1;
  p.scale = DefaultScale(a_.scale, H);
  p.softcap = a_.softcap;
  Tensor bias_f32;
  if (in_.attention_bias != nullptr)
    VT_RETURN_IF_ERROR(AttentionBiasTerm(ctx_, *in_.attention_bias, "attention_bias", B, N, S,
                                         g_.T, &bias_f32, &p.bias));
  std::vector<float> sink;
  if (in_.head_sink != nullptr || a_.smooth_softmax) {
    sink.assign(static_cast<size_t>(N), 0.0f);
    if (in_.head_sink != nullptr) {
      const Tensor hs = AsF32(*in_.head_sink);
      std::copy(hs.data<float>(), hs.data<float>() + N, sink.begin());
    }
    p.sink = sink.data();
  }
  Tensor qk, qkf;
  const bool want_qk = a_.qk_output != 0 && ctx_.output_requested(3);
  if (want_qk) {
    qk = ctx_.AllocOutput(3, in_.query.dtype(), Shape{B, N, S, g_.T});
    qkf = Tensor::Zeros(DType::kFloat32, qk.shape());
    p.scores = qkf.mutable_data<float>();
    p.scores_batch = N * S * g_.T, p.scores_head = S * g_.T, p.scores_row = g_.T;
    p.stage = a_.qk_output == 1 ? kernels::AttentionScoresStage::kMasked
                                : kernels::AttentionScoresStage::kProbabilities;
  }
  RunAttention(p, kernel_, ctx_.threads());
  if (!std::is_same_v<T, float>) StoreF32As(yf, y);
  if (want_qk) {
    // ONNX Runtime writes 0, not -inf, at the keys a row does not see.
    float* s = qkf.mutable_data<float>();
    for (int64_t i = 0; i < qkf.numel(); ++i)
      if (s[i] == -std::numeric_limits<float>::infinity()) s[i] = 0.0f;
    StoreF32As(qkf, qk);
  }
  return Status::Ok();
}

class GqaKernel final : public OpKernel, public KernelDescription {
 public:
  GqaKernel(const GqaAttrs& a, const kernels::AttentionKernel& k) : a_(a), kernel_(k) {}

  std::string Describe() const override {
    return std::string(kernel_.name) + "; present_key / present_value " +
           KvCacheOrderName(KvCacheOrder::kHeadMajor) +
           " with spare capacity (KvCacheLayout), grown in place when the next step's past is"
           " this present; exactly sized when the past is a fixed buffer";
  }

  Status Compute(KernelContext& ctx) const override {
    GqaInputs in;
    VT_ASSIGN_OR_RETURN(Tensor q, ctx.RequireTensor(0));
    in.query = q.Contiguous();
    std::vector<Tensor> keep;  // contiguous copies of strided inputs
    auto opt = [&](size_t i) -> const Tensor* {
      const Tensor* t = OptionalInput(ctx, i);
      if (t == nullptr || t->is_contiguous()) return t;
      keep.push_back(t->Contiguous());
      return &keep.back();
    };
    keep.reserve(16);
    // Past caches are read through their rows per head (a KV cache layout stays in place).
    auto cache = [&](size_t i) -> const Tensor* {
      const Tensor* t = OptionalInput(ctx, i);
      if (t == nullptr || KvRowsPerHead(*t) > 0) return t;
      keep.push_back(t->Contiguous());
      return &keep.back();
    };
    in.key = opt(1), in.value = opt(2), in.past_key = cache(3), in.past_value = cache(4);
    VT_ASSIGN_OR_RETURN(Tensor seqlens, ctx.RequireTensor(5));
    in.seqlens_k = seqlens.Contiguous();
    VT_ASSIGN_OR_RETURN(Tensor total, ctx.RequireTensor(6));
    in.cos = opt(7), in.sin = opt(8), in.position_ids = opt(9);
    in.attention_bias = opt(10), in.head_sink = opt(11);
    if (OptionalInput(ctx, 12) != nullptr || OptionalInput(ctx, 13) != nullptr)
      return ctx.Error("inputs k_scale / v_scale need KV cache quantization (k_quant_type)");
    if (OptionalInput(ctx, 14) != nullptr || OptionalInput(ctx, 15) != nullptr)
      return ctx.Error("inputs q_norm_weight / k_norm_weight are not supported on CPU (as in "
                       "ONNX Runtime's CPU kernel)");
    const DType dt = in.query.dtype();
    if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kBFloat16)
      return ctx.Error(std::string("input query element type ") + DTypeName(dt) +
                       " (expected float, float16 or bfloat16)");
    GqaShape g;
    VT_RETURN_IF_ERROR(CheckShapes(ctx, a_, in, &g));
    VT_RETURN_IF_ERROR(CheckTotals(ctx, total, in, &g));
    VT_RETURN_IF_ERROR(CheckOptional(ctx, a_, in, &g));
    if (dt == DType::kFloat32) return GqaRun<float>(ctx, a_, in, g, kernel_, &growth_).Run();
    if (dt == DType::kFloat16) return GqaRun<Float16>(ctx, a_, in, g, kernel_, &growth_).Run();
    return GqaRun<BFloat16>(ctx, a_, in, g, kernel_, &growth_).Run();
  }

 private:
  GqaAttrs a_;
  const kernels::AttentionKernel& kernel_;
  mutable KvCacheGrowth growth_;  // thread-safe (its own mutex)
};

Expected<std::unique_ptr<OpKernel>> MakeGqa(const KernelInit& init) {
  VT_ASSIGN_OR_RETURN(GqaAttrs a, ReadAttrs(init.node));
  return std::unique_ptr<OpKernel>(new GqaKernel(a, AttentionRowFor(init)));
}

}  // namespace

VT_REGISTER_OP("com.microsoft", "GroupQueryAttention", 1, kMaxOpset, KernelFactory(MakeGqa));

}  // namespace vt::ops
