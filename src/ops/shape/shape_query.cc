// Shape and Size: metadata queries that read only the input's dims (ONNX Operators.md
// "Shape" (opset 1, 13, 15 start/end) and "Size").
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

// Clamps a Shape-15 start/end attribute into [0, rank] after adding rank to negatives.
int64_t ClampShapeBound(int64_t v, int64_t rank) {
  if (v < 0) v += rank;
  return std::min(std::max<int64_t>(v, 0), rank);
}

Status ShapeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  const int64_t rank = x.rank();
  int64_t start = 0, end = rank;
  if (ctx.opset() >= 15) {
    start = ClampShapeBound(ctx.node().GetInt("start", 0), rank);
    if (ctx.node().FindAttr("end")) end = ClampShapeBound(ctx.node().GetInt("end", rank), rank);
  }
  const int64_t n = std::max<int64_t>(end - start, 0);
  Tensor out = ctx.AllocOutput(0, DType::kInt64, {n});
  int64_t* p = out.mutable_data<int64_t>();
  for (int64_t i = 0; i < n; ++i) p[i] = x.dim(static_cast<int>(start + i));
  return Status::Ok();
}

Status SizeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  Tensor out = ctx.AllocOutput(0, DType::kInt64, {});
  *out.mutable_data<int64_t>() = x.numel();
  return Status::Ok();
}

VT_REGISTER_OP("", "Shape", 1, kMaxOpset, ShapeCompute);
VT_REGISTER_OP("", "Size", 1, kMaxOpset, SizeCompute);

}  // namespace
}  // namespace vt::ops
