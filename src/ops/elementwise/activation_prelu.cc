// PRelu (ONNX Operators.md "PRelu"): y = x < 0 ? slope * x : x, slope unidirectionally
// broadcast to x (opset 7+). Opsets 1-6 had per-channel slopes: a 1-D slope of length
// x.shape[1] applies along axis 1, which is how those models (e.g. PyTorch 0.3 exports) use it.
#include <type_traits>

#include "ops/elementwise/binary_kernel.h"

namespace vt::ops {
namespace {

Status PReluCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor slope, ctx.RequireTensor(1));
  VT_RETURN_IF_ERROR(RequireSameDType(ctx, x, slope));
  if (ctx.opset() < 7 && slope.rank() == 1 && x.rank() >= 2 && slope.numel() > 1 &&
      slope.dim(0) == x.dim(1)) {
    Shape shape(static_cast<size_t>(x.rank() - 1), 1);
    std::vector<int64_t> strides(shape.size(), 0);
    shape[0] = slope.dim(0);
    strides[0] = slope.layout().strides()[0];
    auto l = Layout::Strided(shape, strides, slope.layout().offset());
    if (!l.ok()) return ctx.Annotate(l.take_status());
    slope = slope.WithLayout(std::move(l).value());
  }
  auto out = BroadcastShapes(x.shape(), slope.shape());
  if (!out.ok() || *out != x.shape())
    return ctx.Error("slope " + ShapeToString(slope.shape()) + " does not broadcast to X " +
                     ShapeToString(x.shape()));
  Status st = DispatchElem<kSetNumeric>(x.dtype(), [&](auto tag) -> Status {
    using S = decltype(tag);
    using C = ComputeOf<S>;
    Tensor y = ctx.AllocOutput(0, x.dtype(), x.shape());
    return ZipTensors<S, S, S>(x, slope, y, ctx.threads(), LiftBinary<S>([](C v, C s) -> C {
                                 if constexpr (std::is_unsigned_v<C>) {
                                   return v;
                                 } else {
                                   const C n = WrapMul(v, s);
                                   return v < C(0) ? n : v;
                                 }
                               }));
  });
  return ctx.Annotate(std::move(st));
}

VT_REGISTER_OP("", "PRelu", 1, kMaxOpset, PReluCompute);

}  // namespace
}  // namespace vt::ops
