// RotaryEmbedding: ONNX opset 23 and com.microsoft (ONNX Runtime contrib operator, version 1).
//
// ONNX-23: inputs X (B, N, S, H) or (B, S, N * H) with attribute num_heads, cos_cache /
// sin_cache (max_position, R / 2) gathered by position_ids (B, S), or (B, S, R / 2) used
// directly when position_ids is absent; attributes interleaved, rotary_embedding_dim R (0: H),
// num_heads.
// com.microsoft: inputs input (B, S, hidden) or (B, N, S, H), position_ids (1) — positions
// p0 + s — or (B, S), cos_cache / sin_cache (max_position, R / 2); attributes interleaved,
// num_heads (required with rotary_embedding_dim), rotary_embedding_dim, is_packed_batching and
// scale. Without num_heads a 3-D input has head size 2 * cos_cache.dim(1). `scale` only rescales
// a cos / sin cache that a runtime regenerates when a sequence outgrows it; the caches are
// inputs here, so it does not change the result (ONNX Runtime 1.30's CPU kernel ignores it
// too). is_packed_batching changes nothing on this path either: every position must lie inside
// the cache, packed or not.
//
// Types: float, float16, bfloat16 (position_ids int64). Errors: InvalidArgument naming the node
// and the input for ranks, shapes, head counts that do not divide, and positions outside the
// cache.
#include <string>

#include "ops/common/op_util.h"
#include "ops/common/shape_util.h"
#include "ops/transformer/rotary.h"

namespace vt::ops {
namespace {

struct RopeShape {
  int64_t batch = 0, heads = 0, seq = 0, head_size = 0, rotary_dim = 0;
  bool bnsh = false;  // 4-D input (B, N, S, H); else (B, S, N * H)
  // Cache rows: position_ids (B, S), a single start position, or none (cache is (B, S, R/2)).
  enum class Pos { kPerToken, kStart, kNone } pos = Pos::kPerToken;
  int64_t max_position = 0;
};

std::string Dims(const Tensor& t) { return ShapeToString(t.shape()); }

// The cache row of token (b, s), or -1 when outside [0, max_position).
int64_t CacheRow(const RopeShape& g, const int64_t* pos, int64_t b, int64_t s) {
  int64_t p = 0;
  if (g.pos == RopeShape::Pos::kPerToken) p = pos[b * g.seq + s];
  if (g.pos == RopeShape::Pos::kStart) p = pos[0] + s;
  if (g.pos == RopeShape::Pos::kNone) p = b * g.seq + s;
  return p >= 0 && p < g.max_position ? p : -1;
}

template <typename T>
Status Rotate(KernelContext& ctx, const RopeShape& g, const Tensor& x, const Tensor& cos,
              const Tensor& sin, const Tensor* pos, bool interleaved) {
  const Tensor xc = x.Contiguous(), cc = cos.Contiguous(), sc = sin.Contiguous();
  const Tensor pc = pos != nullptr ? pos->Contiguous() : Tensor();
  const int64_t* pp = pos != nullptr ? pc.data<int64_t>() : nullptr;
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t s = 0; s < g.seq; ++s)
      if (CacheRow(g, pp, b, s) < 0)
        return ctx.Error("input position_ids: position " +
                         std::to_string(g.pos == RopeShape::Pos::kStart ? pp[0] + s
                                                                        : pp[b * g.seq + s]) +
                         " of token (" + std::to_string(b) + ", " + std::to_string(s) +
                         ") is outside the cos/sin cache of " + std::to_string(g.max_position) +
                         " positions");
  Tensor y = ctx.AllocOutput(0, x.dtype(), x.shape());
  const T* in = xc.data<T>();
  T* out = y.mutable_data<T>();
  const T* cp = cc.data<T>();
  const T* sp = sc.data<T>();
  const int64_t half = g.rotary_dim / 2, H = g.head_size;
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t n = 0; n < g.heads; ++n)
      for (int64_t s = 0; s < g.seq; ++s) {
        const int64_t row = CacheRow(g, pp, b, s);
        const int64_t off = g.bnsh ? ((b * g.heads + n) * g.seq + s) * H
                                   : ((b * g.seq + s) * g.heads + n) * H;
        RotateRow(in + off, out + off, cp + row * half, sp + row * half,
                  static_cast<size_t>(g.rotary_dim), static_cast<size_t>(H), interleaved);
      }
  return Status::Ok();
}

Status RotateTyped(KernelContext& ctx, const RopeShape& g, const Tensor& x, const Tensor& cos,
                   const Tensor& sin, const Tensor* pos, bool interleaved) {
  if (cos.dtype() != x.dtype() || sin.dtype() != x.dtype())
    return ctx.Error("inputs cos_cache / sin_cache must have the element type of the input (" +
                     std::string(DTypeName(x.dtype())) + ")");
  switch (x.dtype()) {
    case DType::kFloat32: return Rotate<float>(ctx, g, x, cos, sin, pos, interleaved);
    case DType::kFloat16: return Rotate<Float16>(ctx, g, x, cos, sin, pos, interleaved);
    case DType::kBFloat16: return Rotate<BFloat16>(ctx, g, x, cos, sin, pos, interleaved);
    default:
      return ctx.Error(std::string("input element type ") + DTypeName(x.dtype()) +
                       " (expected float, float16 or bfloat16)");
  }
}

// Head geometry from the input's rank and the attributes (shared by both versions).
Status InputGeometry(KernelContext& ctx, const Tensor& x, int64_t num_heads, int64_t rotary_attr,
                     int64_t default_head_size, RopeShape* g) {
  if (x.rank() == 4) {
    g->bnsh = true;
    g->batch = x.dim(0), g->heads = x.dim(1), g->seq = x.dim(2), g->head_size = x.dim(3);
  } else if (x.rank() == 3) {
    g->batch = x.dim(0), g->seq = x.dim(1);
    const int64_t hidden = x.dim(2);
    if (num_heads > 0) {
      if (hidden % num_heads != 0)
        return ctx.Error("input hidden size " + std::to_string(hidden) +
                         " is not a multiple of num_heads = " + std::to_string(num_heads));
      g->heads = num_heads, g->head_size = hidden / num_heads;
    } else {
      if (default_head_size <= 0 || hidden % default_head_size != 0)
        return ctx.Error("3-D input " + Dims(x) + " needs attribute num_heads");
      g->head_size = default_head_size, g->heads = hidden / default_head_size;
    }
  } else {
    return ctx.Error("input must be 3-D or 4-D, got " + Dims(x));
  }
  g->rotary_dim = rotary_attr > 0 ? rotary_attr : g->head_size;
  if (g->rotary_dim > g->head_size || g->rotary_dim % 2 != 0)
    return ctx.Error("rotary_embedding_dim = " + std::to_string(g->rotary_dim) +
                     " must be even and at most the head size " + std::to_string(g->head_size));
  return Status::Ok();
}

Status CheckCache(KernelContext& ctx, const RopeShape& g, const Tensor& cos, const Tensor& sin,
                  int rank) {
  if (cos.shape() != sin.shape())
    return ctx.Error("inputs cos_cache " + Dims(cos) + " and sin_cache " + Dims(sin) +
                     " must have the same shape");
  if (cos.rank() != rank || cos.shape().back() != g.rotary_dim / 2)
    return ctx.Error("input cos_cache " + Dims(cos) + " must be " + std::to_string(rank) +
                     "-D with last dimension rotary_embedding_dim / 2 = " +
                     std::to_string(g.rotary_dim / 2));
  return Status::Ok();
}

// ONNX RotaryEmbedding-23: (X, cos_cache, sin_cache, position_ids?).
Status OnnxRotaryCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor cos, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor sin, ctx.RequireTensor(2));
  const Node& node = ctx.node();
  const int64_t num_heads = node.GetInt("num_heads", 0);
  if (x.rank() == 3 && num_heads <= 0)
    return ctx.Error("3-D input " + Dims(x) + " needs attribute num_heads");
  RopeShape g;
  VT_RETURN_IF_ERROR(InputGeometry(ctx, x, num_heads, node.GetInt("rotary_embedding_dim", 0), 0,
                                   &g));
  const Tensor* pos = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  if (pos != nullptr) {
    if (pos->dtype() != DType::kInt64 || pos->shape() != Shape{g.batch, g.seq})
      return ctx.Error("input position_ids must be int64 (" + std::to_string(g.batch) + ", " +
                       std::to_string(g.seq) + "), got " + DTypeName(pos->dtype()) + Dims(*pos));
    VT_RETURN_IF_ERROR(CheckCache(ctx, g, cos, sin, 2));
    g.pos = RopeShape::Pos::kPerToken;
    g.max_position = cos.dim(0);
  } else {
    VT_RETURN_IF_ERROR(CheckCache(ctx, g, cos, sin, 3));
    if (cos.dim(0) != g.batch || cos.dim(1) != g.seq)
      return ctx.Error("without position_ids, input cos_cache " + Dims(cos) +
                       " must be (batch, sequence, rotary_embedding_dim / 2)");
    g.pos = RopeShape::Pos::kNone;
    g.max_position = g.batch * g.seq;
  }
  return RotateTyped(ctx, g, x, cos, sin, pos, node.GetInt("interleaved", 0) != 0);
}

// com.microsoft RotaryEmbedding: (input, position_ids, cos_cache, sin_cache).
Status MsRotaryCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor pos, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor cos, ctx.RequireTensor(2));
  VT_ASSIGN_OR_RETURN(Tensor sin, ctx.RequireTensor(3));
  const Node& node = ctx.node();
  const int64_t num_heads = node.GetInt("num_heads", 0);
  const int64_t rotary_attr = node.GetInt("rotary_embedding_dim", 0);
  if (num_heads < 0 || rotary_attr < 0)
    return ctx.Error("attributes num_heads and rotary_embedding_dim must not be negative");
  if (rotary_attr > 0 && num_heads == 0)
    return ctx.Error("attribute rotary_embedding_dim needs attribute num_heads");
  if (cos.rank() != 2) return ctx.Error("input cos_cache must be 2-D, got " + Dims(cos));
  RopeShape g;
  VT_RETURN_IF_ERROR(InputGeometry(ctx, x, num_heads, rotary_attr, 2 * cos.dim(1), &g));
  VT_RETURN_IF_ERROR(CheckCache(ctx, g, cos, sin, 2));
  if (pos.dtype() != DType::kInt64)
    return ctx.Error(std::string("input position_ids must be int64, got ") +
                     DTypeName(pos.dtype()));
  if (pos.numel() == 1 && pos.rank() <= 1) {
    g.pos = RopeShape::Pos::kStart;
  } else if (pos.shape() == Shape{g.batch, g.seq}) {
    g.pos = RopeShape::Pos::kPerToken;
  } else {
    return ctx.Error("input position_ids " + Dims(pos) + " must be (1) or (batch, sequence) = (" +
                     std::to_string(g.batch) + ", " + std::to_string(g.seq) + ")");
  }
  g.max_position = cos.dim(0);
  return RotateTyped(ctx, g, x, cos, sin, &pos, node.GetInt("interleaved", 0) != 0);
}

}  // namespace

VT_REGISTER_OP("", "RotaryEmbedding", 23, kMaxOpset, OnnxRotaryCompute);
VT_REGISTER_OP("com.microsoft", "RotaryEmbedding", 1, kMaxOpset, MsRotaryCompute);

}  // namespace vt::ops
