// ReverseSequence (ONNX Operators.md "ReverseSequence", opset 10): for each batch entry b,
// reverses the first sequence_lens[b] steps along the time axis; later steps are copied.
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

Status ReverseSequenceCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = x0.Contiguous();
  if (x.rank() < 2) return ctx.Error("input must have rank >= 2");
  VT_ASSIGN_OR_RETURN(auto lens, ReadIndices(ctx, 1, "sequence_lens"));
  const int64_t batch_axis = ctx.node().GetInt("batch_axis", 1);
  const int64_t time_axis = ctx.node().GetInt("time_axis", 0);
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0)))
    return ctx.Error("batch_axis and time_axis must be 0 and 1 in some order");
  const int64_t batch = x.dim(static_cast<int>(batch_axis));
  const int64_t steps = x.dim(static_cast<int>(time_axis));
  if (static_cast<int64_t>(lens.size()) != batch || ctx.input(1).rank() != 1)
    return ctx.Error("sequence_lens must be 1-D with " + std::to_string(batch) + " entries");
  for (int64_t l : lens)
    if (l < 0 || l > steps)
      return ctx.Error("sequence length " + std::to_string(l) + " out of range [0, " +
                       std::to_string(steps) + "]");
  const DType dt = x.dtype();
  Tensor y = ctx.AllocOutput(0, dt, x.shape());
  const int64_t inner = DimProduct(x.shape(), 2, x.shape().size());
  // Element offset of (time t, batch b, 0...) in the dense layout.
  const int64_t t_stride = time_axis == 0 ? batch * inner : inner;
  const int64_t b_stride = batch_axis == 0 ? steps * inner : inner;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t len = lens[static_cast<size_t>(b)];
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t src_t = t < len ? len - 1 - t : t;
      CopyElems(dt, ElemPtr(y.raw_mutable_data(), dt, t * t_stride + b * b_stride),
                ElemPtr(x.raw_data(), dt, src_t * t_stride + b * b_stride), inner);
    }
  }
  return Status::Ok();
}

VT_REGISTER_OP("", "ReverseSequence", 10, kMaxOpset, ReverseSequenceCompute);

}  // namespace
}  // namespace vt::ops
