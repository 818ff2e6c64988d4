// Concat and Split (ONNX Operators.md "Concat", "Split": `split` attribute before opset 13,
// input from 13, `num_outputs` from 18). Concat copies one contiguous run per (outer index,
// input); Split hands out views when a part is dense and materialises it otherwise, so
// consumers never copy the same part twice.
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

Status ConcatCompute(KernelContext& ctx) {
  if (ctx.num_inputs() == 0) return ctx.Error("at least one input is required");
  std::vector<Tensor> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(i));
    ins.push_back(t.Contiguous());
  }
  const Tensor& first = ins[0];
  const int rank = first.rank();
  const DType dt = first.dtype();
  if (rank == 0) return ctx.Error("cannot concatenate scalars");
  const Attribute* axis_attr = ctx.node().FindAttr("axis");
  if (axis_attr == nullptr && ctx.opset() >= 4) return ctx.Error("attribute 'axis' is required");
  VT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxisFor(ctx, ctx.node().GetInt("axis", 1), rank));
  Shape out_shape = first.shape();
  out_shape[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < ins.size(); ++i) {
    const Tensor& t = ins[i];
    if (t.dtype() != dt)
      return ctx.Error("input " + std::to_string(i) + " has dtype " + DTypeName(t.dtype()) +
                       ", input 0 has " + DTypeName(dt));
    if (t.rank() != rank)
      return ctx.Error("input " + std::to_string(i) + " has shape " + ShapeToString(t.shape()) +
                       ", input 0 has " + ShapeToString(first.shape()));
    for (int d = 0; d < rank; ++d)
      if (d != axis && t.dim(d) != first.dim(d))
        return ctx.Error("input " + std::to_string(i) + " has shape " + ShapeToString(t.shape()) +
                         ", incompatible with input 0 shape " + ShapeToString(first.shape()) +
                         " on axis " + std::to_string(d));
    out_shape[static_cast<size_t>(axis)] += t.dim(static_cast<int>(axis));
  }
  Tensor out = ctx.AllocOutput(0, dt, out_shape);
  if (out.numel() == 0) return Status::Ok();
  const int64_t outer = DimProduct(out_shape, 0, static_cast<size_t>(axis));
  const int64_t inner = DimProduct(out_shape, static_cast<size_t>(axis) + 1, out_shape.size());
  const int64_t out_chunk = out_shape[static_cast<size_t>(axis)] * inner;
  int64_t col = 0;
  for (const Tensor& t : ins) {
    const int64_t chunk = t.dim(static_cast<int>(axis)) * inner;
    if (chunk == 0) continue;
    const void* src = t.raw_data();
    for (int64_t o = 0; o < outer; ++o)
      CopyElems(dt, ElemPtr(out.raw_mutable_data(), dt, o * out_chunk + col),
                ElemPtr(src, dt, o * chunk), chunk);
    col += chunk;
  }
  return Status::Ok();
}

Status SplitCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = StridedForm(x0);
  const int rank = x.rank();
  if (rank == 0) return ctx.Error("cannot split a scalar");
  VT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxisFor(ctx, ctx.node().GetInt("axis", 0), rank));
  const int64_t dim = x.dim(static_cast<int>(axis));
  const size_t n_out = ctx.num_outputs();
  std::vector<int64_t> split;
  bool given = false;
  if (ctx.opset() >= 13) {
    if (ctx.has_input(1) && ctx.input_value(1)->is_tensor()) {
      VT_ASSIGN_OR_RETURN(split, ReadIntList(ctx, 1, "split"));
      given = true;
    }
  } else {
    if (ctx.node().FindAttr("split")) {
      split = ctx.node().GetInts("split");
      given = true;
    } else if (ctx.opset() < 2 && ctx.has_input(1) && ctx.input_value(1)->is_tensor()) {
      split = ToInt64Vector(ctx.input(1));  // Split-1 takes lengths in the data type
      given = true;
    }
  }
  if (!given) {
    if (ctx.opset() >= 18 && ctx.node().FindAttr("num_outputs")) {
      const int64_t k = ctx.node().GetInt("num_outputs", 0);
      if (k < 1 || static_cast<size_t>(k) != n_out)
        return ctx.Error("num_outputs " + std::to_string(k) + " does not match " +
                         std::to_string(n_out) + " outputs");
      // Opset 18: ceil(dim / k) per part, the last one smaller.
      const int64_t part = (dim + k - 1) / k;
      int64_t left = dim;
      for (int64_t i = 0; i < k; ++i) {
        split.push_back(std::min(part, left));
        left -= split.back();
      }
    } else {
      if (n_out == 0) return ctx.Error("no outputs");
      if (dim % static_cast<int64_t>(n_out) != 0)
        return ctx.Error("dim " + std::to_string(dim) + " of axis " + std::to_string(axis) +
                         " cannot be split evenly into " + std::to_string(n_out) + " parts");
      split.assign(n_out, dim / static_cast<int64_t>(n_out));
    }
  }
  if (split.size() != n_out)
    return ctx.Error("split has " + std::to_string(split.size()) + " entries for " +
                     std::to_string(n_out) + " outputs");
  int64_t sum = 0;
  for (int64_t s : split) {
    if (s < 0 || s > dim) return ctx.Error("invalid split length " + std::to_string(s));
    sum += s;
  }
  if (sum != dim)
    return ctx.Error("split lengths sum to " + std::to_string(sum) + ", axis " +
                     std::to_string(axis) + " has " + std::to_string(dim));
  int64_t start = 0;
  for (size_t i = 0; i < n_out; ++i) {
    auto l = x.layout().Slice(static_cast<int>(axis), split[i] > 0 ? start : 0, 1, split[i]);
    if (!l.ok()) return ctx.Annotate(l.take_status());
    Tensor part = x.WithLayout(std::move(l).value());
    ctx.SetOutput(i, part.is_contiguous() ? part : part.Contiguous());
    start += split[i];
  }
  return Status::Ok();
}

VT_REGISTER_OP("", "Concat", 1, kMaxOpset, ConcatCompute);
VT_REGISTER_OP("", "Split", 1, kMaxOpset, SplitCompute);

}  // namespace
}  // namespace vt::ops
