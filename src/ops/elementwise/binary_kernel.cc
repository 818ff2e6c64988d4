#include "ops/elementwise/binary_kernel.h"

namespace vt::ops {

Expected<BinaryOperands> PrepareBinary(const KernelContext& ctx) {
  BinaryOperands r;
  VT_ASSIGN_OR_RETURN(r.a_, TensorArg(ctx, 0));
  VT_ASSIGN_OR_RETURN(r.b_, TensorArg(ctx, 1));
  const Tensor& a = *r.a_;
  const Tensor& b = *r.b_;
  const Node& n = ctx.node();
  if (ctx.opset() < 7 && n.GetInt("broadcast", 0) != 0 && n.FindAttr("axis") != nullptr) {
    // Legacy: B's dims sit at A's dims [axis, axis + rank(B)).
    const int64_t ra = a.rank(), rb = b.rank();
    int64_t axis = n.GetInt("axis", 0);
    if (axis < 0) axis += ra;
    if (axis < 0 || axis + rb > ra)
      return ctx.Error("axis " + std::to_string(n.GetInt("axis", 0)) + " cannot place B " +
                       ShapeToString(b.shape()) + " in A " + ShapeToString(a.shape()));
    Shape shape(static_cast<size_t>(ra), 1);
    std::vector<int64_t> strides(static_cast<size_t>(ra), 0);
    for (int64_t i = 0; i < rb; ++i) {
      shape[static_cast<size_t>(axis + i)] = b.dim(static_cast<int>(i));
      strides[static_cast<size_t>(axis + i)] = b.layout().strides()[static_cast<size_t>(i)];
    }
    auto l = Layout::Strided(shape, strides, b.layout().offset());
    if (!l.ok()) return ctx.Annotate(l.take_status());
    r.b_view_ = b.WithLayout(std::move(l).value());
    r.legacy_b_ = true;
  }
  auto out = BroadcastShapes(a.shape(), r.b().shape());
  if (!out.ok()) return ctx.Annotate(out.take_status());
  r.out_ = std::move(out).value();
  return r;
}

Status RequireSameDType(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype()) return Status::Ok();
  return ctx.Error(std::string("input dtypes differ: ") + DTypeName(a.dtype()) + " vs " +
                   DTypeName(b.dtype()));
}

}  // namespace vt::ops
