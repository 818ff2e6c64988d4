// ai.vtensor Attention (graph/fused_ops.h, docs/transformer-fusion.md): what fuse-attention
// makes of an exported scaled dot-product attention subgraph, computed by the attention kernel
// family (kernels/attention, docs/attention.md) without materialising the scores.
//
// Inputs (f32, any strides with a unit element stride; other layouts are copied):
//   Q     [B, N, S, D], or [B, S, N*D] (N = num_heads)
//   K     [Bk, Nkv, T, D], or [Bk, T, Nkv*D] (Nkv = kv_num_heads)
//   V     [Bk, Nkv, T, Dv], or [Bk, T, Nkv*Dv]
//   Mask  optional, rank <= 4, broadcast to the scores [B, N, S, T] (each dim 1 or equal)
// Query head h reads KV head h / (N / Nkv) (N a multiple of Nkv); batch dims of Q, K, V and the
// mask broadcast (each 1 or the largest). scores = scale * Q K^T + Mask, softmax over the
// keys, times V. Output [B, N, S, Dv], or [B, S, N*Dv] with bsh_output = 1.
// A row whose scores are all -inf gives 0 where the unfused Softmax gives NaN (docs/
// attention.md); finite masks such as -10000 or the float minimum give the Softmax's result.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "kernels/attention/attention_table.h"
#include "kernels/cpu/flush_denormals.h"
#include "ops/common/row_kernels.h"
#include "vtensor/exec/kernel.h"
#include "vtensor/graph/fused_ops.h"

namespace vt::ops {
namespace {

// One operand as [batch, heads, rows, d] strides (elements) over its data.
struct Operand {
  Tensor keep;
  const float* data = nullptr;
  int64_t batch = 0, heads = 0, rows = 0, d = 0;
  int64_t sb = 0, sh = 0, sr = 0;
};

// `t` as rank 4 [B, H, R, D], or rank 3 [B, R, H*D] split into `heads`; unit element stride.
Expected<Operand> View(const KernelContext& ctx, const Tensor& t0, int64_t heads, const char* what) {
  if (t0.dtype() != DType::kFloat32) return ctx.Unsupported(std::string(what) + " must be f32");
  if (t0.rank() != 3 && t0.rank() != 4)
    return ctx.Error(std::string(what) + " " + ShapeToString(t0.shape()) + " must have rank 3 or 4");
  Operand o;
  o.keep = t0.layout().is_strided() && t0.layout().strides().back() == 1 ? t0 : t0.Contiguous();
  const auto& st = o.keep.layout().strides();
  o.data = o.keep.data<float>();
  if (t0.rank() == 4) {
    o.batch = t0.dim(0), o.heads = t0.dim(1), o.rows = t0.dim(2), o.d = t0.dim(3);
    o.sb = st[0], o.sh = st[1], o.sr = st[2];
  } else {
    if (heads < 1 || t0.dim(2) % heads != 0)
      return ctx.Error(std::string(what) + " " + ShapeToString(t0.shape()) + ": last dim is not " +
                       std::to_string(heads) + " heads");
    o.batch = t0.dim(0), o.heads = heads, o.rows = t0.dim(1), o.d = t0.dim(2) / heads;
    o.sb = st[0], o.sr = st[1], o.sh = o.d;  // heads side by side within a row (stride 1)
  }
  if (o.batch == 1) o.sb = 0;
  return o;
}

Status AttentionCompute(KernelContext& ctx, const kernels::AttentionKernel& kern) {
  const Node& node = ctx.node();
  const int64_t n_attr = node.GetInt("num_heads", 0), kv_attr = node.GetInt("kv_num_heads", 0);
  VT_ASSIGN_OR_RETURN(Tensor tq, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor tk, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor tv, ctx.RequireTensor(2));
  VT_ASSIGN_OR_RETURN(Operand q, View(ctx, tq, n_attr, "Q"));
  VT_ASSIGN_OR_RETURN(Operand k, View(ctx, tk, kv_attr, "K"));
  VT_ASSIGN_OR_RETURN(Operand v, View(ctx, tv, kv_attr, "V"));
  if (k.d != q.d || v.heads != k.heads || v.rows != k.rows || v.batch != k.batch)
    return ctx.Error("Q " + ShapeToString(tq.shape()) + ", K " + ShapeToString(tk.shape()) +
                     " and V " + ShapeToString(tv.shape()) + " do not fit one attention");
  if (k.heads < 1 || q.heads % k.heads != 0)
    return ctx.Error(std::to_string(q.heads) + " query heads are not a multiple of " +
                     std::to_string(k.heads) + " KV heads");
  const int64_t B = std::max(q.batch, k.batch), N = q.heads, S = q.rows, T = k.rows, Dv = v.d;
  if ((q.batch != B && q.batch != 1) || (k.batch != B && k.batch != 1))
    return ctx.Error("batch dims of Q and K / V do not broadcast");
  const int64_t group = N / k.heads;
  // The additive mask, aligned to the scores [B, N, S, T].
  Tensor mask;
  int64_t ms[4] = {0, 0, 0, 0};
  if (ctx.has_input(3)) {
    VT_ASSIGN_OR_RETURN(Tensor m, ctx.RequireTensor(3));
    if (m.dtype() != DType::kFloat32) return ctx.Unsupported("Mask must be f32");
    const int64_t want[4] = {B, N, S, T};
    if (m.rank() > 4) return ctx.Error("Mask " + ShapeToString(m.shape()) + " has rank above 4");
    mask = m.layout().is_strided() ? m : m.Contiguous();
    for (int d = 0; d < m.rank(); ++d) {
      const int o = 4 - m.rank() + d;
      if (m.dim(d) != 1 && m.dim(d) != want[o])
        return ctx.Error("Mask " + ShapeToString(m.shape()) + " does not broadcast to the scores [" +
                         std::to_string(B) + ", " + std::to_string(N) + ", " + std::to_string(S) +
                         ", " + std::to_string(T) + "]");
      ms[o] = m.dim(d) == 1 ? 0 : mask.layout().strides()[static_cast<size_t>(d)];
    }
  }
  const bool bsh = node.GetInt(kBshOutputAttr, 0) != 0;
  Tensor y = ctx.AllocOutput(0, DType::kFloat32, bsh ? Shape{B, S, N * Dv} : Shape{B, N, S, Dv});
  if (y.numel() == 0) return Status::Ok();
  // Output strides per (batch, head, row).
  const int64_t ob = N * S * Dv, oh = bsh ? Dv : S * Dv, orow = bsh ? N * Dv : Dv;
  float* py = y.mutable_data<float>();
  if (T == 0) {  // no keys: the unfused MatMul of empty operands gives zeros
    std::fill(py, py + y.numel(), 0.0f);
    return Status::Ok();
  }
  const float scale = node.GetFloat("scale", 1.0f);
  const int64_t calls = B * k.heads;
  const size_t scratch_floats =
      kernels::AttentionScratchFloats(static_cast<size_t>(group * S), static_cast<size_t>(q.d));
  const int threads = static_cast<int>(std::min<int64_t>(std::max(1, ctx.threads()), calls));
  auto run = [&](int64_t c0, int64_t c1) {
    const kernels::ScopedFlushDenormals ftz;
    thread_local std::vector<float> scratch;
    if (scratch.size() < scratch_floats) scratch.resize(scratch_floats);
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t b = c / k.heads, kvh = c % k.heads, h0 = kvh * group;
      kernels::AttentionCall call;
      call.heads = static_cast<size_t>(group);
      call.rows = static_cast<size_t>(S);
      call.head_size = static_cast<size_t>(q.d);
      call.v_head_size = static_cast<size_t>(Dv);
      call.q = q.data + b * q.sb + h0 * q.sh;
      call.q_head_stride = q.sh, call.q_row_stride = q.sr;
      call.k = k.data + b * k.sb + kvh * k.sh, call.k_row_stride = k.sr;
      call.v = v.data + b * v.sb + kvh * v.sh, call.v_row_stride = v.sr;
      call.out = py + b * ob + h0 * oh;
      call.out_head_stride = oh, call.out_row_stride = orow;
      call.kv_begin = 0, call.kv_end = static_cast<size_t>(T);
      call.scale = scale;
      if (mask.defined()) {
        call.bias.data = mask.data<float>() + b * ms[0] + h0 * ms[1];
        call.bias.head_stride = ms[1], call.bias.row_stride = ms[2], call.bias.key_stride = ms[3];
      }
      kern.ukernel(call, scratch.data());
    }
  };
  if (threads <= 1) {
    run(0, calls);
  } else {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int i = 0; i < threads; ++i) run(calls * i / threads, calls * (i + 1) / threads);
  }
  return Status::Ok();
}

// The kernel row is the session's ISA level's, chosen when the node is prepared.
class FusedAttentionKernel final : public OpKernel {
 public:
  explicit FusedAttentionKernel(const KernelInit& init) : kern_(AttentionRowFor(init)) {}
  Status Compute(KernelContext& ctx) const override { return AttentionCompute(ctx, kern_); }

 private:
  const kernels::AttentionKernel& kern_;
};

Expected<std::unique_ptr<OpKernel>> MakeFusedAttention(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new FusedAttentionKernel(init));
}

VT_REGISTER_OP("ai.vtensor", "Attention", 1, kMaxOpset, KernelFactory(MakeFusedAttention));

}  // namespace
}  // namespace vt::ops
