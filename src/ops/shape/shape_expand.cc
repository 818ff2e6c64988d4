// Expand (ONNX Operators.md "Expand"): bidirectional numpy broadcast of the input to a
// shape, returned as a stride-0 view (no bytes are copied).
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

Status ExpandCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = StridedForm(x0);
  VT_ASSIGN_OR_RETURN(auto target, ReadIntList(ctx, 1, "shape"));
  for (int64_t d : target)
    if (d < 0) return ctx.Error("negative dim in shape " + ShapeToString(target));
  auto out = BroadcastShapes(x.shape(), target);
  if (!out.ok()) return ctx.Annotate(out.take_status());
  VT_RETURN_IF_ERROR(CheckOutputShape(ctx, *out));
  auto l = x.layout().BroadcastTo(*out);
  if (!l.ok()) return ctx.Annotate(l.take_status());
  ctx.SetOutput(0, x.WithLayout(std::move(l).value()));
  return Status::Ok();
}

VT_REGISTER_OP("", "Expand", 8, kMaxOpset, ExpandCompute);

}  // namespace
}  // namespace vt::ops
