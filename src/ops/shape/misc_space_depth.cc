// DepthToSpace and SpaceToDepth (ONNX Operators.md; DepthToSpace `mode` DCR/CRD since
// opset 11). Both are a reshape to 6-D, a transpose and a reshape back; the transpose is a
// strided view that is materialised once.
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

// Reshapes contiguous `x` to `six`, permutes by `perm`, and returns a dense tensor of `out`.
Expected<Tensor> Rearrange(const Tensor& x, const Shape& six, const std::vector<int64_t>& perm,
                           const Shape& out) {
  VT_ASSIGN_OR_RETURN(Tensor r, x.Reshape(six));
  VT_ASSIGN_OR_RETURN(Layout l, r.layout().Transpose(perm));
  Tensor t = r.WithLayout(std::move(l)).Contiguous();
  return t.Reshape(out);
}

Expected<int64_t> ReadBlocksize(const KernelContext& ctx) {
  const Attribute* a = ctx.node().FindAttr("blocksize");
  if (!a) return ctx.Error("attribute 'blocksize' is required");
  if (a->i < 1 || a->i > (int64_t{1} << 20)) return ctx.Error("blocksize must be >= 1");
  return a->i;
}

Status DepthToSpaceCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  if (x0.rank() != 4) return ctx.Error("input must be 4-D NCHW, got " + ShapeToString(x0.shape()));
  VT_ASSIGN_OR_RETURN(int64_t b, ReadBlocksize(ctx));
  const int64_t n = x0.dim(0), c = x0.dim(1), h = x0.dim(2), w = x0.dim(3);
  if (c % (b * b) != 0)
    return ctx.Error("channels " + std::to_string(c) + " not divisible by blocksize^2");
  const std::string mode = ctx.opset() >= 11 ? ctx.node().GetString("mode", "DCR") : "DCR";
  const int64_t oc = c / (b * b);
  const Tensor x = x0.Contiguous();
  const Shape out = {n, oc, h * b, w * b};
  Expected<Tensor> y = Status(StatusCode::kInternal, "unset");
  if (mode == "DCR") {
    y = Rearrange(x, {n, b, b, oc, h, w}, {0, 3, 4, 1, 5, 2}, out);
  } else if (mode == "CRD") {
    y = Rearrange(x, {n, oc, b, b, h, w}, {0, 1, 4, 2, 5, 3}, out);
  } else {
    return ctx.Error("unsupported mode '" + mode + "'");
  }
  if (!y.ok()) return ctx.Annotate(y.take_status());
  ctx.SetOutput(0, *y);
  return Status::Ok();
}

Status SpaceToDepthCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  if (x0.rank() != 4) return ctx.Error("input must be 4-D NCHW, got " + ShapeToString(x0.shape()));
  VT_ASSIGN_OR_RETURN(int64_t b, ReadBlocksize(ctx));
  const int64_t n = x0.dim(0), c = x0.dim(1), h = x0.dim(2), w = x0.dim(3);
  if (h % b != 0 || w % b != 0)
    return ctx.Error("spatial dims " + ShapeToString(x0.shape()) + " not divisible by blocksize");
  const Tensor x = x0.Contiguous();
  auto y = Rearrange(x, {n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4}, {n, c * b * b, h / b, w / b});
  if (!y.ok()) return ctx.Annotate(y.take_status());
  ctx.SetOutput(0, *y);
  return Status::Ok();
}

VT_REGISTER_OP("", "DepthToSpace", 1, kMaxOpset, DepthToSpaceCompute);
VT_REGISTER_OP("", "SpaceToDepth", 1, kMaxOpset, SpaceToDepthCompute);

}  // namespace
}  // namespace vt::ops
