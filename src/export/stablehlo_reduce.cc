// Reductions and softmax -> StableHLO: stablehlo.reduce with the matching body; means divide
// by the static element count; keepdims is a reshape to the specialized output shape.
#include <algorithm>
#include <limits>

#include "export/stablehlo_emitter.h"

namespace vt::hlo {

namespace {

// The reduced dims of a Reduce* node: the `axes` input (ReduceSum >= 13, the others >= 18)
// or attribute; empty means all dims unless noop_with_empty_axes.
Expected<std::vector<int64_t>> ReduceAxes(NodeContext& cx, int64_t rank, bool* noop) {
  const Node& n = cx.node();
  const bool from_input = (n.op_type == "ReduceSum" && n.opset >= 13) || n.opset >= 18;
  std::vector<int64_t> axes;
  if (from_input) {
    if (cx.has_input(1)) {
      VT_ASSIGN_OR_RETURN(axes, cx.ConstInts(1));
    }
  } else {
    axes = n.GetInts("axes");
  }
  *noop = false;
  if (axes.empty()) {
    if (n.GetInt("noop_with_empty_axes", 0) != 0) {
      *noop = true;
      return axes;
    }
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  for (auto& a : axes) {
    VT_ASSIGN_OR_RETURN(a, NormAxis(cx, a, rank));
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

Status ReduceOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  bool noop = false;
  VT_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReduceAxes(cx, static_cast<int64_t>(x.shape.size()), &noop));
  Emitter& e = cx.e();
  if (noop) {
    cx.Set(0, x);
    return Status::Ok();
  }
  const std::string& op = cx.node().op_type;
  const double inf = std::numeric_limits<double>::infinity();
  if (op == "ReduceMean") VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, axes, "the mean's element count"));
  int64_t count = 1;
  for (int64_t a : axes) count *= x.shape[static_cast<size_t>(a)];
  Val r;
  if (op == "ReduceSum" || op == "ReduceMean") {
    r = e.Reduce(x, axes, "stablehlo.add", 0);
    if (op == "ReduceMean")
      r = e.Binary("stablehlo.divide", r, e.Splat(static_cast<double>(count), r.dtype, r.shape));
  } else if (op == "ReduceMax") {
    r = e.Reduce(x, axes, "stablehlo.maximum", -inf);
  } else if (op == "ReduceMin") {
    r = e.Reduce(x, axes, "stablehlo.minimum", inf);
  } else if (op == "ReduceProd") {
    r = e.Reduce(x, axes, "stablehlo.multiply", 1);
  } else if (op == "ReduceSumSquare" || op == "ReduceL2") {
    r = e.Reduce(e.Binary("stablehlo.multiply", x, x), axes, "stablehlo.add", 0);
    if (op == "ReduceL2") r = e.Unary("stablehlo.sqrt", r);
  } else if (op == "ReduceL1") {
    r = e.Reduce(e.Unary("stablehlo.abs", x), axes, "stablehlo.add", 0);
  } else if (op == "ReduceLogSum") {
    r = e.Unary("stablehlo.log", e.Reduce(x, axes, "stablehlo.add", 0));
  } else if (op == "ReduceLogSumExp") {
    r = e.Unary("stablehlo.log", e.Reduce(e.Unary("stablehlo.exponential", x), axes, "stablehlo.add", 0));
  } else {
    return cx.Unsupported("reduction " + op);
  }
  cx.Set(0, e.Reshape(r, cx.OutShape(0)));
  return Status::Ok();
}

// Softmax / LogSoftmax: opset >= 13 normalizes along `axis` (default -1); older opsets along
// the flattened dims [axis, rank) (default axis 1).
Status SoftmaxOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  const int64_t r = static_cast<int64_t>(x.shape.size());
  const bool modern = cx.node().opset >= 13;
  VT_ASSIGN_OR_RETURN(int64_t axis, NormAxis(cx, cx.node().GetInt("axis", modern ? -1 : 1), r));
  std::vector<int64_t> dims, keep;
  for (int64_t i = 0; i < r; ++i) {
    const bool reduced = modern ? i == axis : i >= axis;
    (reduced ? dims : keep).push_back(i);
  }
  Emitter& e = cx.e();
  Val m = e.BroadcastInDim(e.Reduce(x, dims, "stablehlo.maximum", -std::numeric_limits<double>::infinity()),
                           x.shape, keep);
  Val shifted = e.Binary("stablehlo.subtract", x, m);
  Val ex = e.Unary("stablehlo.exponential", shifted);
  Val sum = e.BroadcastInDim(e.Reduce(ex, dims, "stablehlo.add", 0), x.shape, keep);
  if (cx.node().op_type == "LogSoftmax")
    cx.Set(0, e.Binary("stablehlo.subtract", shifted, e.Unary("stablehlo.log", sum)));
  else
    cx.Set(0, e.Binary("stablehlo.divide", ex, sum));
  return Status::Ok();
}

}  // namespace

void AddReduceConverters(std::map<std::string, Converter>& m) {
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                         "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"})
    m[op] = ReduceOp;
  m["Softmax"] = SoftmaxOp;
  m["LogSoftmax"] = SoftmaxOp;
}

}  // namespace vt::hlo
