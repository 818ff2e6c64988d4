#include "ops/transformer/attention_common.h"

#include <cmath>

#include "ops/common/f32_compute.h"
#include "vtensor/forms/weight_provider.h"

namespace vt::ops {

const Tensor* OptionalInput(const KernelContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return nullptr;
  const Value* v = ctx.input_value(i);
  return v != nullptr && v->is_tensor() ? &v->tensor() : nullptr;
}

Status AttentionBiasTerm(const KernelContext& ctx, const Tensor& bias, const std::string& input,
                         int64_t batch, int64_t heads, int64_t q_len, int64_t total, Tensor* f32,
                         ScoreTerm* term) {
  if (!IsAttentionFloat(bias.dtype()))
    return ctx.Error("input " + input + " must be a float tensor, got " +
                     DTypeName(bias.dtype()));
  if (bias.rank() != 4 || (bias.dim(0) != 1 && bias.dim(0) != batch) ||
      (bias.dim(1) != 1 && bias.dim(1) != heads) || bias.dim(2) != q_len ||
      bias.dim(3) != total)
    return ctx.Error("input " + input + " " + DimsOf(bias) + " must be (" +
                     std::to_string(batch) + " or 1, " + std::to_string(heads) + " or 1, " +
                     std::to_string(q_len) + ", " + std::to_string(total) + ")");
  *f32 = AsF32(bias);
  term->data = f32->data<float>();
  term->key = 1;
  term->row = total;
  term->head = bias.dim(1) == 1 ? 0 : q_len * total;
  term->batch = bias.dim(0) == 1 ? 0 : bias.dim(1) * q_len * total;
  return Status::Ok();
}

float DefaultScale(float scale, int64_t head_size) {
  return scale != 0.0f ? scale : 1.0f / std::sqrt(static_cast<float>(head_size));
}

std::string DimsOf(const Tensor& t) { return ShapeToString(t.shape()); }

bool IsAttentionFloat(DType t) { return IsF32Computable(t); }

}  // namespace vt::ops
