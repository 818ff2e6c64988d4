// StringConcat (ONNX Operators.md "StringConcat", opset 20): Z = X + Y per element, string
// tensors with multidirectional (numpy) broadcasting.
#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

Status StringConcatCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor y0, ctx.RequireTensor(1));
  if (x0.dtype() != DType::kString)
    return ctx.Error(std::string("input 'X' (0) has element type ") + DTypeName(x0.dtype()) +
                     ", expected string");
  if (y0.dtype() != DType::kString)
    return ctx.Error(std::string("input 'Y' (1) has element type ") + DTypeName(y0.dtype()) +
                     ", expected string");
  Expected<Shape> out = BroadcastShapes(x0.shape(), y0.shape());
  if (!out.ok())
    return ctx.Error("inputs 'X' (0) " + ShapeToString(x0.shape()) + " and 'Y' (1) " +
                     ShapeToString(y0.shape()) + " do not broadcast");
  const Tensor x = x0.Contiguous(), y = y0.Contiguous();
  Tensor z = ctx.AllocOutput(0, DType::kString, *out);
  const std::string* xs = x.data<std::string>();
  const std::string* ys = y.data<std::string>();
  std::string* zs = z.mutable_data<std::string>();
  ForEachBroadcast2(*out, BroadcastStrides(x.shape(), *out), BroadcastStrides(y.shape(), *out),
                    [&](int64_t o, int64_t a, int64_t b) {
                      zs[o].reserve(xs[a].size() + ys[b].size());
                      zs[o].assign(xs[a]).append(ys[b]);
                    });
  return Status::Ok();
}

VT_REGISTER_OP("", "StringConcat", 20, kMaxOpset, StringConcatCompute);

}  // namespace
}  // namespace vt::ops
