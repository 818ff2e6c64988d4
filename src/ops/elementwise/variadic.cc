// Variadic elementwise Min, Max, Sum, Mean (ONNX Operators.md): one or more inputs of one dtype,
// multidirectionally broadcast together (opset 8+; earlier opsets required equal shapes, which
// numpy broadcasting accepts too). Min/Max propagate NaN (numpy minimum/maximum); Mean divides
// the sum by the input count.
#include <cmath>
#include <type_traits>

#include "ops/elementwise/binary_kernel.h"

namespace vt::ops {
namespace {

template <unsigned Set, typename MakeOp>
Status Variadic(KernelContext& ctx, MakeOp&& make_op, bool mean) {
  std::vector<Tensor> xs;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(i));
    if (!xs.empty()) VT_RETURN_IF_ERROR(RequireSameDType(ctx, xs[0], t));
    shapes.push_back(t.shape());
    xs.push_back(std::move(t));
  }
  if (xs.empty()) return ctx.Error("needs at least one input");
  auto out = BroadcastShapes(shapes);
  if (!out.ok()) return ctx.Annotate(out.take_status());
  Status st = DispatchElem<Set>(xs[0].dtype(), [&](auto tag) -> Status {
    using S = decltype(tag);
    using C = ComputeOf<S>;
    Tensor y = ctx.AllocOutput(0, xs[0].dtype(), *out);
    auto op = LiftBinary<S>(make_op(C{}));
    if (xs.size() == 1) {
      VT_RETURN_IF_ERROR((MapTensor<S, S>(xs[0], y, ctx.threads(), [](S v) { return v; })));
    } else {
      VT_RETURN_IF_ERROR((ZipTensors<S, S, S>(xs[0], xs[1], y, ctx.threads(), op)));
      // Accumulate in place: y has the full output shape, so y[i] only feeds y[i].
      for (size_t k = 2; k < xs.size(); ++k)
        VT_RETURN_IF_ERROR((ZipTensors<S, S, S>(y, xs[k], y, ctx.threads(), op)));
    }
    if (mean) {
      const C n = static_cast<C>(xs.size());
      VT_RETURN_IF_ERROR((MapTensor<S, S>(y, y, ctx.threads(),
                                          LiftUnary<S>([n](C v) -> C { return v / n; }))));
    }
    return Status::Ok();
  });
  return ctx.Annotate(std::move(st));
}

Status MaxCompute(KernelContext& ctx) {
  return Variadic<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C { return (x > y || std::isnan(x)) ? x : y; };
  }, false);
}

Status MinCompute(KernelContext& ctx) {
  return Variadic<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C { return (x < y || std::isnan(x)) ? x : y; };
  }, false);
}

Status SumCompute(KernelContext& ctx) {
  return Variadic<kSetNumeric>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C { return WrapAdd(x, y); };
  }, false);
}

Status MeanCompute(KernelContext& ctx) {
  return Variadic<kSetAllFloat>(ctx, [](auto tag) {
    using C = decltype(tag);
    return [](C x, C y) -> C { return x + y; };
  }, true);
}

VT_REGISTER_OP("", "Max", 1, kMaxOpset, MaxCompute);
VT_REGISTER_OP("", "Min", 1, kMaxOpset, MinCompute);
VT_REGISTER_OP("", "Sum", 1, kMaxOpset, SumCompute);
VT_REGISTER_OP("", "Mean", 1, kMaxOpset, MeanCompute);

}  // namespace
}  // namespace vt::ops
