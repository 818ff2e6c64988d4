// Slice (ONNX Operators.md "Slice": attributes starts/ends/axes before opset 10, inputs
// starts/ends/axes/steps from 10). Returns a strided view of the input; negative steps
// become negative strides. Out-of-range starts/ends are clamped as the spec prescribes.
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

// Clamps one (start, end, step) triple for a dim of size `dim` and returns the number of
// selected elements; `start` is rewritten to the first selected index.
int64_t ClampSliceRange(int64_t dim, int64_t* start, int64_t end, int64_t step) {
  int64_t s = *start, e = end;
  // Values may be INT64_MIN/MAX sentinels: clamp before any arithmetic with dim.
  if (s < -dim) s = -dim - 1;
  if (e < -dim) e = -dim - 1;
  if (s > dim) s = dim;
  if (e > dim) e = dim;
  if (s < 0) s += dim;
  if (e < 0) e += dim;
  int64_t count;
  if (step > 0) {
    s = std::min(std::max<int64_t>(s, 0), dim);
    e = std::min(std::max<int64_t>(e, 0), dim);
    count = e > s ? (e - s + step - 1) / step : 0;
  } else {
    s = std::min(std::max<int64_t>(s, 0), dim - 1);
    e = std::min(std::max<int64_t>(e, -1), dim - 1);
    count = s > e ? (s - e + (-step) - 1) / (-step) : 0;
  }
  *start = s;
  return dim == 0 ? 0 : count;
}

Status SliceCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = StridedForm(x0);
  const int rank = x.rank();
  std::vector<int64_t> starts, ends, axes, steps;
  bool has_axes = false, has_steps = false;
  if (ctx.opset() < 10) {
    starts = ctx.node().GetInts("starts");
    ends = ctx.node().GetInts("ends");
    has_axes = ctx.node().FindAttr("axes") != nullptr;
    if (has_axes) axes = ctx.node().GetInts("axes");
  } else {
    VT_ASSIGN_OR_RETURN(starts, ReadIntList(ctx, 1, "starts"));
    VT_ASSIGN_OR_RETURN(ends, ReadIntList(ctx, 2, "ends"));
    has_axes = ctx.has_input(3) && ctx.input_value(3)->is_tensor();
    if (has_axes) {
      VT_ASSIGN_OR_RETURN(axes, ReadIntList(ctx, 3, "axes"));
    }
    has_steps = ctx.has_input(4) && ctx.input_value(4)->is_tensor();
    if (has_steps) {
      VT_ASSIGN_OR_RETURN(steps, ReadIntList(ctx, 4, "steps"));
    }
  }
  if (starts.size() != ends.size())
    return ctx.Error("starts and ends have different lengths (" + std::to_string(starts.size()) +
                     " vs " + std::to_string(ends.size()) + ")");
  if (!has_axes) {
    if (static_cast<int>(starts.size()) > rank)
      return ctx.Error("starts has more entries than the input rank");
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (axes.size() != starts.size()) return ctx.Error("axes and starts have different lengths");
  if (!has_steps) steps.assign(starts.size(), 1);
  if (steps.size() != starts.size()) return ctx.Error("steps and starts have different lengths");
  VT_ASSIGN_OR_RETURN(auto naxes, NormalizeAxisList(ctx, axes, rank));
  Layout l = x.layout();
  for (size_t i = 0; i < naxes.size(); ++i) {
    const int axis = static_cast<int>(naxes[i]);
    const int64_t step = steps[i];
    if (step == 0) return ctx.Error("step 0 on axis " + std::to_string(axis));
    int64_t start = starts[i];
    // |step| >= dim selects at most one element; step 1 then avoids overflowing -step or
    // the stride product for sentinel steps such as INT64_MIN.
    const int64_t dim = x.dim(axis);
    const int64_t bounded = step > dim ? dim + 1 : (step < -dim ? -dim - 1 : step);
    const int64_t count = ClampSliceRange(dim, &start, ends[i], bounded);
    auto sl = l.Slice(axis, count > 0 ? start : 0, count > 1 ? bounded : 1, count);
    if (!sl.ok()) return ctx.Annotate(sl.take_status());
    l = std::move(sl).value();
  }
  ctx.SetOutput(0, x.WithLayout(std::move(l)));
  return Status::Ok();
}

VT_REGISTER_OP("", "Slice", 1, kMaxOpset, SliceCompute);

}  // namespace
}  // namespace vt::ops
