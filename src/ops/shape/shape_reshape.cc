// Reshape, Flatten, Squeeze, Unsqueeze: ops that only relabel dims. All return views over
// the input's storage (Squeeze/Unsqueeze even for strided inputs; Reshape/Flatten copy only
// when the input is not contiguous). ONNX Operators.md "Reshape" (allowzero since 14),
// "Flatten", "Squeeze" / "Unsqueeze" (axes attribute before opset 13, input from 13).
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

// Resolves a Reshape target: 0 copies the input dim (unless allowzero), -1 is inferred.
Expected<Shape> ResolveReshape(const KernelContext& ctx, const Shape& in,
                               const std::vector<int64_t>& spec, bool allowzero) {
  Shape out(spec.size());
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == -1) {
      if (infer >= 0) return ctx.Error("shape has more than one -1");
      infer = static_cast<int>(i);
      continue;
    }
    if (d == 0 && !allowzero) {
      if (i >= in.size())
        return ctx.Error("shape has 0 at index " + std::to_string(i) + " beyond input rank " +
                         std::to_string(in.size()));
      d = in[i];
    }
    if (d < 0) return ctx.Error("invalid dim " + std::to_string(d) + " in shape");
    out[i] = d;
    if (d != 0 && known > (int64_t{1} << 62) / d) return ctx.Error("shape is too large");
    known *= d;
  }
  const int64_t total = NumElements(in);
  if (infer >= 0) {
    if (known == 0) {
      if (total != 0) return ctx.Error("cannot infer -1 with a zero dim in shape");
      out[static_cast<size_t>(infer)] = 0;
    } else {
      if (total % known != 0)
        return ctx.Error("cannot reshape " + ShapeToString(in) + " to " +
                         ShapeToString(Shape(spec.begin(), spec.end())));
      out[static_cast<size_t>(infer)] = total / known;
    }
  }
  if (NumElements(out) != total)
    return ctx.Error("cannot reshape " + ShapeToString(in) + " (" + std::to_string(total) +
                     " elements) to " + ShapeToString(out));
  return out;
}

Status ReshapeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  std::vector<int64_t> spec;
  if (ctx.opset() < 5) {
    spec = ctx.node().GetInts("shape");
  } else {
    VT_ASSIGN_OR_RETURN(spec, ReadIntList(ctx, 1, "shape"));
  }
  const bool allowzero = ctx.opset() >= 14 && ctx.node().GetInt("allowzero", 0) != 0;
  VT_ASSIGN_OR_RETURN(Shape out, ResolveReshape(ctx, x.shape(), spec, allowzero));
  auto r = x.Reshape(out);
  if (!r.ok()) return ctx.Annotate(r.take_status());
  ctx.SetOutput(0, *r);
  return Status::Ok();
}

Status FlattenCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  const int64_t rank = x.rank();
  int64_t axis = ctx.node().GetInt("axis", 1);
  if (axis < -rank || axis > rank)
    return ctx.Error("axis " + std::to_string(axis) + " out of range [-" + std::to_string(rank) +
                     ", " + std::to_string(rank) + "]");
  if (axis < 0) axis += rank;
  const Shape& s = x.shape();
  Shape out = {DimProduct(s, 0, static_cast<size_t>(axis)),
               DimProduct(s, static_cast<size_t>(axis), s.size())};
  auto r = x.Reshape(out);
  if (!r.ok()) return ctx.Annotate(r.take_status());
  ctx.SetOutput(0, *r);
  return Status::Ok();
}

// Axes from the attribute (opset < 13) or the optional input 1 (opset >= 13).
Expected<std::vector<int64_t>> AxesAttrOrInput(const KernelContext& ctx, bool* given) {
  if (ctx.opset() < 13) {
    *given = ctx.node().FindAttr("axes") != nullptr;
    return ctx.node().GetInts("axes");
  }
  *given = ctx.has_input(1) && ctx.input_value(1)->is_tensor();
  if (!*given) return std::vector<int64_t>{};
  return ReadIntList(ctx, 1, "axes");
}

Status SqueezeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = StridedForm(x0);
  bool given = false;
  VT_ASSIGN_OR_RETURN(auto axes_raw, AxesAttrOrInput(ctx, &given));
  const int rank = x.rank();
  std::vector<bool> drop(static_cast<size_t>(rank), false);
  if (given && !axes_raw.empty()) {
    VT_ASSIGN_OR_RETURN(auto axes, NormalizeAxisList(ctx, axes_raw, rank));
    for (int64_t a : axes) {
      if (x.dim(static_cast<int>(a)) != 1)
        return ctx.Error("cannot squeeze axis " + std::to_string(a) + " of size " +
                         std::to_string(x.dim(static_cast<int>(a))) + " in shape " +
                         ShapeToString(x.shape()));
      drop[static_cast<size_t>(a)] = true;
    }
  } else {
    for (int d = 0; d < rank; ++d) drop[static_cast<size_t>(d)] = x.dim(d) == 1;
  }
  Shape shape;
  std::vector<int64_t> strides;
  for (int d = 0; d < rank; ++d) {
    if (drop[static_cast<size_t>(d)]) continue;
    shape.push_back(x.dim(d));
    strides.push_back(x.layout().strides()[static_cast<size_t>(d)]);
  }
  VT_ASSIGN_OR_RETURN(Layout l, Layout::Strided(shape, strides, x.layout().offset(), x.layout().encoding()));
  ctx.SetOutput(0, x.WithLayout(std::move(l)));
  return Status::Ok();
}

Status UnsqueezeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = StridedForm(x0);
  bool given = false;
  VT_ASSIGN_OR_RETURN(auto axes_raw, AxesAttrOrInput(ctx, &given));
  if (axes_raw.empty()) return ctx.Error("axes is required and must not be empty");
  const int64_t out_rank = x.rank() + static_cast<int64_t>(axes_raw.size());
  VT_ASSIGN_OR_RETURN(auto axes, NormalizeAxisList(ctx, axes_raw, out_rank));
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t a : axes) inserted[static_cast<size_t>(a)] = true;
  Shape shape;
  std::vector<int64_t> strides;
  size_t src = 0;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (inserted[static_cast<size_t>(d)]) {
      shape.push_back(1);
      strides.push_back(0);  // a size-1 dim is never stepped over
    } else {
      shape.push_back(x.dim(static_cast<int>(src)));
      strides.push_back(x.layout().strides()[src]);
      ++src;
    }
  }
  VT_ASSIGN_OR_RETURN(Layout l, Layout::Strided(shape, strides, x.layout().offset(), x.layout().encoding()));
  ctx.SetOutput(0, x.WithLayout(std::move(l)));
  return Status::Ok();
}

VT_REGISTER_OP("", "Reshape", 1, kMaxOpset, ReshapeCompute);
VT_REGISTER_OP("", "Flatten", 1, kMaxOpset, FlattenCompute);
VT_REGISTER_OP("", "Squeeze", 1, kMaxOpset, SqueezeCompute);
VT_REGISTER_OP("", "Unsqueeze", 1, kMaxOpset, UnsqueezeCompute);

}  // namespace
}  // namespace vt::ops
