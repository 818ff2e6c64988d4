// com.microsoft EmbedLayerNormalization-1 (docs/contrib-ops.md): BERT's embedding layer, the
// sum of word, position and (optional) segment embedding rows normalised over the hidden axis.
//
//   inputs   input_ids [B, S] int32; segment_ids [B, S] int32 (optional); word_embedding
//            [V, H]; position_embedding [P, H]; segment_embedding [G, H] (optional); gamma [H];
//            beta [H]; mask [B, S] int32 (optional); position_ids [B, S] or [1, S] int32
//            (optional; absent: position = index in the sequence).
//   outputs  output [B, S, H]; mask_index [B] int32 (optional): per batch row the position of
//            the first 0 in mask (S when there is none), 0 when no mask is given;
//            embedding_sum [B, S, H] (optional): the sum before normalization.
//   attrs    epsilon (float, default 1e-12, >= 0); mask_index_type (0 or 1, default 1: only
//            tells shape inference whether mask_index exists).
//   types    float32 and float16 embeddings (float16 computed in f32 per row, rounded once);
//            ids, mask and position_ids int32 (int64 accepted too).
// A segment_embedding without segment_ids adds its row 0 to every token (segment ids 0), as
// ONNX Runtime does. Errors (node and input named): ranks and shapes other than the above, an
// id outside its embedding's rows (with its position), segment_ids without segment_embedding.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "ops/common/op_util.h"
#include "ops/contrib/contrib_inputs.h"
#include "ops/common/row_kernels.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

struct EmbedArgs {
  Tensor word, pos, gamma, beta;
  std::optional<Tensor> seg;
  std::vector<int64_t> ids, seg_ids, mask, pos_ids;  // empty when not given
  bool pos_broadcast = false;                         // position_ids is [1, S]
  int64_t batch = 0, seq = 0, hidden = 0;
  float epsilon = 0;
};

Status CheckIds(const KernelContext& ctx, const Tensor& t, size_t i, const char* name) {
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64)
    return ctx.Error(InputLabel(i, name) + " has element type " + DTypeName(t.dtype()) + ", expected int32");
  return Status::Ok();
}

Status CheckTable(const KernelContext& ctx, const Tensor& t, int64_t hidden, DType dt, size_t i,
                  const char* name) {
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, t, dt, i, name));
  if (t.rank() != 2 || t.dim(1) != hidden)
    return ctx.Error(InputLabel(i, name) + ": expected shape [rows, " + std::to_string(hidden) +
                     "], got " + ShapeToString(t.shape()));
  return Status::Ok();
}

// Every id of `ids` in [0, rows); the error names the first offender and where it is.
Status CheckRange(const KernelContext& ctx, const std::vector<int64_t>& ids, int64_t seq,
                  int64_t rows, size_t i, const char* name, const char* table) {
  for (size_t k = 0; k < ids.size(); ++k)
    if (ids[k] < 0 || ids[k] >= rows)
      return ctx.Error(InputLabel(i, name) + ": value " + std::to_string(ids[k]) + " at [" +
                       std::to_string(static_cast<int64_t>(k) / seq) + ", " +
                       std::to_string(static_cast<int64_t>(k) % seq) + "] is outside " + table +
                       "'s " + std::to_string(rows) + " rows");
  return Status::Ok();
}

Status ReadIndexInputs(const KernelContext& ctx, EmbedArgs& a, const Tensor& ids) {
  const Shape& s = ids.shape();
  VT_ASSIGN_OR_RETURN(auto seg_ids, OptionalInput(ctx, 1, "segment_ids"));
  if (seg_ids) {
    VT_RETURN_IF_ERROR(CheckIds(ctx, *seg_ids, 1, "segment_ids"));
    if (seg_ids->shape() != s)
      return ctx.Error(InputLabel(1, "segment_ids") + ": shape " + ShapeToString(seg_ids->shape()) +
                       " differs from input_ids " + ShapeToString(s));
    if (!a.seg) return ctx.Error(InputLabel(1, "segment_ids") + " is given without segment_embedding (4)");
    a.seg_ids = ToInt64Vector(*seg_ids);
    VT_RETURN_IF_ERROR(CheckRange(ctx, a.seg_ids, a.seq, a.seg->dim(0), 1, "segment_ids", "segment_embedding"));
  }
  VT_ASSIGN_OR_RETURN(auto mask, OptionalInput(ctx, 7, "mask"));
  if (mask) {
    VT_RETURN_IF_ERROR(CheckIds(ctx, *mask, 7, "mask"));
    if (mask->shape() != s)
      return ctx.Error(InputLabel(7, "mask") + ": shape " + ShapeToString(mask->shape()) +
                       " differs from input_ids " + ShapeToString(s));
    a.mask = ToInt64Vector(*mask);
  }
  VT_ASSIGN_OR_RETURN(auto pos_ids, OptionalInput(ctx, 8, "position_ids"));
  if (pos_ids) {
    VT_RETURN_IF_ERROR(CheckIds(ctx, *pos_ids, 8, "position_ids"));
    if (pos_ids->rank() != 2 || pos_ids->dim(1) != a.seq ||
        (pos_ids->dim(0) != a.batch && pos_ids->dim(0) != 1))
      return ctx.Error(InputLabel(8, "position_ids") + ": expected shape [" + std::to_string(a.batch) +
                       ", " + std::to_string(a.seq) + "] or [1, " + std::to_string(a.seq) + "], got " +
                       ShapeToString(pos_ids->shape()));
    a.pos_broadcast = pos_ids->dim(0) == 1;
    a.pos_ids = ToInt64Vector(*pos_ids);
    VT_RETURN_IF_ERROR(CheckRange(ctx, a.pos_ids, a.seq, a.pos.dim(0), 8, "position_ids", "position_embedding"));
  } else if (a.seq > a.pos.dim(0)) {
    return ctx.Error(InputLabel(3, "position_embedding") + ": " + std::to_string(a.pos.dim(0)) +
                     " rows cannot cover sequence length " + std::to_string(a.seq));
  }
  return Status::Ok();
}

Expected<EmbedArgs> ReadArgs(const KernelContext& ctx) {
  EmbedArgs a;
  VT_ASSIGN_OR_RETURN(Tensor ids, RequiredInput(ctx, 0, "input_ids"));
  VT_ASSIGN_OR_RETURN(a.word, RequiredInput(ctx, 2, "word_embedding"));
  VT_ASSIGN_OR_RETURN(a.pos, RequiredInput(ctx, 3, "position_embedding"));
  VT_ASSIGN_OR_RETURN(a.seg, OptionalInput(ctx, 4, "segment_embedding"));
  VT_ASSIGN_OR_RETURN(a.gamma, RequiredInput(ctx, 5, "gamma"));
  VT_ASSIGN_OR_RETURN(a.beta, RequiredInput(ctx, 6, "beta"));
  VT_RETURN_IF_ERROR(CheckIds(ctx, ids, 0, "input_ids"));
  if (ids.rank() != 2)
    return ctx.Error(InputLabel(0, "input_ids") + ": expected rank 2 [batch, sequence], got shape " +
                     ShapeToString(ids.shape()));
  a.batch = ids.dim(0), a.seq = ids.dim(1);
  const DType dt = a.word.dtype();
  if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kBFloat16)
    return ctx.Unsupported(InputLabel(2, "word_embedding") + " has element type " + DTypeName(dt) +
                           "; the operator takes float32 or float16 embeddings");
  if (a.word.rank() != 2)
    return ctx.Error(InputLabel(2, "word_embedding") + ": expected rank 2 [vocabulary, hidden], got shape " +
                     ShapeToString(a.word.shape()));
  a.hidden = a.word.dim(1);
  VT_RETURN_IF_ERROR(CheckTable(ctx, a.pos, a.hidden, dt, 3, "position_embedding"));
  if (a.seg) VT_RETURN_IF_ERROR(CheckTable(ctx, *a.seg, a.hidden, dt, 4, "segment_embedding"));
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, a.gamma, dt, 5, "gamma"));
  VT_RETURN_IF_ERROR(ExpectVector(ctx, a.gamma, a.hidden, 5, "gamma"));
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, a.beta, dt, 6, "beta"));
  VT_RETURN_IF_ERROR(ExpectVector(ctx, a.beta, a.hidden, 6, "beta"));
  a.ids = ToInt64Vector(ids);
  VT_RETURN_IF_ERROR(CheckRange(ctx, a.ids, a.seq, a.word.dim(0), 0, "input_ids", "word_embedding"));
  VT_RETURN_IF_ERROR(ReadIndexInputs(ctx, a, ids));
  a.epsilon = ctx.node().GetFloat("epsilon", 1e-12f);
  if (!(a.epsilon >= 0)) return ctx.Error("attribute epsilon must be >= 0, got " + std::to_string(a.epsilon));
  const int64_t mit = ctx.node().GetInt("mask_index_type", 1);
  if (mit != 0 && mit != 1)
    return ctx.Error("attribute mask_index_type must be 0 or 1, got " + std::to_string(mit));
  return a;
}

// Row `row` of an f32 / f16 / bf16 table as floats: a pointer into an f32 table, else the row
// converted into `scratch`.
const float* RowF32(const Tensor& t, int64_t row, int64_t n, float* scratch) {
  if (t.dtype() == DType::kFloat32) return t.data<float>() + row * n;
  const uint16_t* p = t.data<uint16_t>() + row * n;
  for (int64_t i = 0; i < n; ++i)
    scratch[i] = t.dtype() == DType::kFloat16 ? HalfToFloat(p[i]) : BFloat16ToFloat(p[i]);
  return scratch;
}

void StoreRow(Tensor& t, int64_t row, int64_t n, const float* v) {
  if (t.dtype() == DType::kFloat32) return;  // written in place
  uint16_t* p = t.mutable_data<uint16_t>() + row * n;
  for (int64_t i = 0; i < n; ++i)
    p[i] = t.dtype() == DType::kFloat16 ? FloatToHalf(v[i]) : FloatToBFloat16(v[i]);
}

class EmbedLayerNormKernel final : public OpKernel {
 public:
  explicit EmbedLayerNormKernel(const KernelInit& init) : row_(LayerNormRowFor(init)) {}

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(EmbedArgs a, ReadArgs(ctx));
    const DType dt = a.word.dtype();
    const Shape out_shape{a.batch, a.seq, a.hidden};
    Tensor y = ctx.AllocOutput(0, dt, out_shape);
    const bool want_sum = ctx.output_requested(2);
    Tensor sum = want_sum ? ctx.AllocOutput(2, dt, out_shape) : Tensor();
    const Tensor word = a.word.Contiguous(), pos = a.pos.Contiguous();
    const Tensor seg = a.seg ? a.seg->Contiguous() : Tensor();
    const int64_t h = a.hidden, tokens = a.batch * a.seq;
    const bool f32 = dt == DType::kFloat32;
    auto as_floats = [h](const Tensor& t) {
      std::vector<float> v(static_cast<size_t>(h));
      const Tensor c = t.Contiguous();
      const float* p = RowF32(c, 0, h, v.data());
      if (p != v.data()) std::copy_n(p, h, v.data());
      return v;
    };
    const std::vector<float> gamma = as_floats(a.gamma), beta = as_floats(a.beta);
    if (h > 0) {
      ParallelRows(tokens, 8 * tokens * h, ctx.threads(), [&](int64_t t) {
        thread_local std::vector<float> scratch;
        if (!f32) scratch.resize(static_cast<size_t>(5 * h));
        const int64_t s = t % a.seq;
        const int64_t p = a.pos_ids.empty() ? s : a.pos_ids[static_cast<size_t>(a.pos_broadcast ? s : t)];
        kernels::LayerNormRow row;
        row.n = static_cast<size_t>(h);
        row.x = RowF32(word, a.ids[static_cast<size_t>(t)], h, scratch.data());
        row.a = RowF32(pos, p, h, scratch.data() + h);
        if (a.seg) {
          const int64_t g = a.seg_ids.empty() ? 0 : a.seg_ids[static_cast<size_t>(t)];
          row.b = RowF32(seg, g, h, scratch.data() + 2 * h);
        }
        row.gamma = gamma.data(), row.beta = beta.data();
        row.y = f32 ? y.mutable_data<float>() + t * h : scratch.data() + 3 * h;
        if (want_sum) row.sum = f32 ? sum.mutable_data<float>() + t * h : scratch.data() + 4 * h;
        row.epsilon = a.epsilon;
        float mean, inv;
        row_.ukernel(row, &mean, &inv);
        if (!f32) {
          StoreRow(y, t, h, row.y);
          if (want_sum) StoreRow(sum, t, h, row.sum);
        }
      });
    }
    if (ctx.output_requested(1)) StoreMaskIndex(ctx, a);
    return Status::Ok();
  }

 private:
  // Position of the first 0 of each mask row (S when none); all 0 without a mask.
  static void StoreMaskIndex(KernelContext& ctx, const EmbedArgs& a) {
    Tensor mi = ctx.AllocOutput(1, DType::kInt32, {a.batch});
    int32_t* out = mi.mutable_data<int32_t>();
    for (int64_t b = 0; b < a.batch; ++b) {
      int64_t first = a.mask.empty() ? 0 : a.seq;
      for (int64_t s = 0; !a.mask.empty() && s < a.seq; ++s)
        if (a.mask[static_cast<size_t>(b * a.seq + s)] == 0) {
          first = s;
          break;
        }
      out[b] = static_cast<int32_t>(first);
    }
  }

  const kernels::LayerNormKernel& row_;
};

Expected<std::unique_ptr<OpKernel>> MakeEmbedLayerNorm(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new EmbedLayerNormKernel(init));
}

VT_REGISTER_OP("com.microsoft", "EmbedLayerNormalization", 1, kMaxOpset,
               KernelFactory(MakeEmbedLayerNorm));

}  // namespace
}  // namespace vt::ops
