#include "ops/reduce/reduce_plan.h"

#include <algorithm>

#include "ops/common/op_util.h"

namespace vt::ops {

ReducePlan PlanReduce(const Shape& shape, const std::vector<int64_t>& axes, bool keepdims) {
  const size_t rank = shape.size();
  std::vector<bool> red(rank, false);
  for (int64_t a : axes) red[static_cast<size_t>(a)] = true;

  ReducePlan p;
  for (size_t d = 0; d < rank; ++d) {
    if (!red[d]) p.out_shape.push_back(shape[d]);
    else if (keepdims) p.out_shape.push_back(1);
  }

  // Runs of (reduced?, extent) after dropping size-1 dims, which never change addressing.
  std::vector<std::pair<bool, int64_t>> runs;
  for (size_t d = 0; d < rank; ++d) {
    if (shape[d] == 1) continue;
    if (!runs.empty() && runs.back().first == red[d]) runs.back().second *= shape[d];
    else runs.emplace_back(red[d], shape[d]);
  }
  int reduced_runs = 0;
  for (const auto& r : runs) reduced_runs += r.first ? 1 : 0;

  if (reduced_runs <= 1) {
    bool seen = false;
    for (const auto& [is_red, n] : runs) {
      if (is_red) {
        p.reduce = n;
        seen = true;
      } else if (seen) {
        p.inner *= n;
      } else {
        p.outer *= n;
      }
    }
    return p;
  }
  for (size_t d = 0; d < rank; ++d)
    if (!red[d]) {
      p.perm.push_back(static_cast<int64_t>(d));
      p.outer *= shape[d];
    }
  for (size_t d = 0; d < rank; ++d)
    if (red[d]) {
      p.perm.push_back(static_cast<int64_t>(d));
      p.reduce *= shape[d];
    }
  return p;
}

Tensor ArrangeForReduce(const Tensor& x, const ReducePlan& plan) {
  if (plan.perm.empty()) return x.Contiguous();
  auto l = x.layout().Transpose(plan.perm);
  // The permutation comes from PlanReduce over x's own rank, so it is always valid.
  return x.WithLayout(*l).Contiguous();
}

Expected<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) {
    int64_t n = a < 0 ? a + rank : a;
    if (n < 0 || n >= rank)
      return InvalidArgument("axis " + std::to_string(a) + " out of range for rank " +
                             std::to_string(rank));
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    return InvalidArgument("repeated axis in axes");
  return out;
}

Expected<std::vector<int64_t>> ReadReduceAxes(const KernelContext& ctx, int64_t rank, bool* noop) {
  std::vector<int64_t> raw;
  if (ctx.has_input(1)) {
    VT_ASSIGN_OR_RETURN(Tensor axes, ctx.RequireTensor(1));
    if (axes.dtype() != DType::kInt64 && axes.dtype() != DType::kInt32)
      return ctx.Error(std::string("axes must be int64, got ") + DTypeName(axes.dtype()));
    if (axes.rank() > 1) return ctx.Error("axes must be a 1-D tensor");
    raw = ToInt64Vector(axes);
  } else {
    raw = ctx.node().GetInts("axes");
  }
  *noop = false;
  if (raw.empty()) {
    if (ctx.node().GetInt("noop_with_empty_axes", 0) != 0) {
      *noop = true;
      return raw;
    }
    for (int64_t d = 0; d < rank; ++d) raw.push_back(d);
    return raw;
  }
  auto norm = NormalizeAxes(raw, rank);
  if (!norm.ok()) return ctx.Annotate(norm.take_status());
  return norm;
}

}  // namespace vt::ops
